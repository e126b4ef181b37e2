package dev.tenbin.eval.web;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenbin.rpc.ServerSecurity;
import dev.tenbin.testing.browser.DrivenChromium;
import dev.tenbin.testing.data.TinyBeir;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipInputStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.support.ui.Select;

/**
 * A newcomer's way through the web UI of a real eval service that takes a bearer token, in Chromium
 * driven through WebDriver ({@link DrivenChromium}) in a 1,024 px window: signs in (a wrong token
 * first), watches the running job finish as the job list polls, filters the all-jobs leaderboard to
 * one language, compares BM25 with the dense system on one task, downloads the job's archive from
 * its page, and imports a TREC run that then joins the leaderboard. Every page on the way passes
 * the layout check, and the leaderboard's two forms can be reached with Tab.
 */
class EvalWebUiDriveIT {
  private static final int WIDTH = 1024;
  private static final String BM25 = "bm25/base/retrieval";
  private static final String DENSE = "dense:tiny-e5/base/retrieval";

  /** A run of {@link TinyBeir}'s folder: q1 finds d1 first; q3 ranks d1 (not relevant) above d3. */
  private static final String RUN =
      """
      q1 Q0 d1 1 3.5 handmade
      q1 Q0 d2 2 1.0 handmade
      q2 Q0 d4 1 2.0 handmade
      q3 Q0 d1 1 2.0 handmade
      q3 Q0 d3 2 1.5 handmade
      """;

  @TempDir Path dir;
  private final EvalWebUiTest service = new EvalWebUiTest();
  private DrivenChromium browser;
  private String id;
  private String base;

  @BeforeEach
  void start() throws Exception {
    browser = DrivenChromium.in(dir.resolve("browser"), WIDTH, 900);
    service.tmp = dir.resolve("service");
    service.moreCells = EvalWebUiBrowserIT.moreSystemsAndLanguages();
    Path data = Files.createDirectories(dir.resolve("data"));
    TinyBeir.write(data.resolve("tiny"));
    service.dataRoots = List.of(data);
    Path tokens = Files.writeString(dir.resolve("tokens"), EvalWebUiTest.TOKEN + "\n");
    id = service.start(ServerSecurity.plaintext().withAuthTokenFile(tokens));
    base = service.http().base();
  }

  @AfterEach
  void stop() {
    if (browser != null) {
      browser.close();
    }
    service.stop();
  }

  @Test
  void aNewcomerSignsInWatchesTheJobFinishFiltersComparesDownloadsAndImports() throws Exception {
    assertThat(browser.viewportWidth()).as("the window's width").isEqualTo(WIDTH);

    // 1. nothing without the token: the job list sends to the sign-in page, which refuses a
    // wrong token and accepts the right one
    service.awaitFirstStored();
    browser.open(base + "/jobs");
    assertThat(browser.driver().getCurrentUrl()).contains("/login?next=%2Fjobs");
    assertThat(browser.driver().getPageSource()).doesNotContain(id);
    fits("the sign-in page");
    signIn("not-the-token-0123456789abcdef");
    assertThat(browser.find(By.cssSelector("p.error[role=alert]")).getText())
        .contains("not accepted");
    assertThat(browser.driver().getPageSource()).doesNotContain(id);
    signIn(EvalWebUiTest.TOKEN);
    browser.waitUntil(d -> d.getCurrentUrl().endsWith("/jobs"));

    // 2. the running job's row updates in place as the page polls, until it is done
    WebElement row = browser.find(By.cssSelector("tr[data-job='" + id + "']"));
    assertThat(field(row, "state")).isEqualTo("RUNNING");
    assertThat(field(row, "cells")).isEqualTo("1 of 5");
    fits("the job list while the job runs");
    browser.script("window.tenbinNotReloaded = true;");
    service.awaitFinished(id);
    browser.waitUntil(d -> field(row, "state").equals("SUCCEEDED"));
    assertThat(field(row, "cells")).isEqualTo("5 of 5");
    assertThat(browser.script("return window.tenbinNotReloaded === true;"))
        .as("updated without reloading the page")
        .isEqualTo(true);
    fits("the job list once the job is done");

    // 3. the leaderboard, filtered to German: only BM25 has a German task
    browser.find(By.linkText("Leaderboard")).click();
    browser.waitUntil(d -> d.getCurrentUrl().endsWith("/leaderboard"));
    assertThat(mainRows()).containsExactlyInAnyOrder(BM25, DENSE);
    fits("the all-jobs leaderboard");
    assertReachableWithTab();
    WebElement filters = browser.find(By.cssSelector("form[aria-label=filters]"));
    Select language = new Select(filters.findElement(By.name("language")));
    assertThat(language.getOptions()).extracting(o -> o.getAttribute("value")).contains("de", "en");
    language.selectByValue("de");
    filters.findElement(By.cssSelector("button[type=submit]")).click();
    browser.waitUntil(d -> d.getCurrentUrl().contains("language=de"));
    assertThat(mainRows()).containsExactly(BM25);
    assertThat(browser.find(By.tagName("body")).getText()).contains("1 of 5 stored cells");
    fits("the leaderboard filtered to German");

    // 4. BM25 against the dense system on tiny-a, through the compare form
    browser.find(By.linkText("clear filters")).click();
    browser.waitUntil(d -> !d.getCurrentUrl().contains("language="));
    WebElement compareForm = browser.find(By.id("compare-form"));
    new Select(compareForm.findElement(By.name("a"))).selectByValue(BM25);
    new Select(compareForm.findElement(By.name("b"))).selectByValue(DENSE);
    Select task = new Select(compareForm.findElement(By.name("task")));
    String tinyA =
        task.getOptions().stream()
            .map(o -> o.getAttribute("value"))
            .filter(v -> v.endsWith("/tiny-a"))
            .findFirst()
            .orElseThrow(() -> new AssertionError("the compare form offers no task tiny-a"));
    task.selectByValue(tinyA);
    compareForm.findElement(By.cssSelector("button[type=submit]")).click();
    browser.waitUntil(d -> d.getCurrentUrl().contains("/compare?"));
    String compare = browser.find(By.tagName("body")).getText();
    assertThat(compare).contains("Compare " + BM25 + " and " + DENSE);
    assertThat(browser.driver().findElements(By.cssSelector("table.moved")))
        .as("one task compared")
        .hasSize(1);
    assertThat(browser.find(By.cssSelector("table.moved")).getAttribute("data-task"))
        .isEqualTo(tinyA);
    // the paired-test table shows each system's stored nDCG@10 on tiny-a: 0.5 and 0.25
    List<List<String>> paired = table(browser.find(By.cssSelector("table.paired")));
    assertThat(pairedValue(paired, BM25)).as("%s", paired).isEqualTo("50.00");
    assertThat(pairedValue(paired, DENSE)).as("%s", paired).isEqualTo("25.00");
    fits("the comparison");

    // 5. the job's archive, from the link on its page, lands in the download folder
    browser.find(By.linkText("Jobs")).click();
    browser.find(By.linkText(id)).click();
    browser.waitUntil(d -> d.getCurrentUrl().endsWith("/jobs/" + id));
    fits("the job page");
    browser.find(By.id("archive")).click();
    Path archive = browser.waitUntil(d -> downloaded(id + ".zip"));
    Map<String, String> inArchive = cellsIn(archive);
    Map<String, String> onDisk = cellsOnDisk();
    assertThat(inArchive.keySet()).containsExactlyElementsOf(onDisk.keySet());
    assertThat(inArchive.keySet()).filteredOn(path -> path.endsWith(".cell.json")).hasSize(5);
    assertThat(inArchive).as("the cells' bytes").isEqualTo(onDisk);

    // 6. a TREC run, uploaded on the import page, becomes a job that joins the leaderboard
    browser.find(By.linkText("Import")).click();
    browser.waitUntil(d -> d.getCurrentUrl().endsWith("/import"));
    fits("the import page");
    Path runFile = Files.writeString(dir.resolve("handmade.trec"), RUN);
    browser.find(By.id("run")).sendKeys(runFile.toString());
    browser.find(By.id("name")).sendKeys("handmade");
    browser.find(By.id("dataset")).sendKeys("tiny");
    browser.find(By.cssSelector("form[action='/import/run'] button[type=submit]")).click();
    browser.waitUntil(d -> d.getCurrentUrl().matches(".*/jobs/job-[^/]+$"));
    String imported = browser.driver().getCurrentUrl().replaceAll(".*/jobs/", "");
    assertThat(imported).isNotEqualTo(id);
    assertThat(browser.find(By.tagName("body")).getText())
        .contains("import: trec-run", "external:handmade", "SUCCEEDED");
    fits("the imported job's page");
    browser.find(By.linkText("Leaderboard")).click();
    browser.waitUntil(d -> d.getCurrentUrl().endsWith("/leaderboard"));
    assertThat(mainRows()).contains("external:handmade/base/retrieval", BM25, DENSE);
    fits("the leaderboard with the imported run");
  }

  // ---- the steps

  private void signIn(String token) {
    WebElement field = browser.find(By.id("token"));
    field.clear();
    field.sendKeys(token);
    field.submit();
    browser.waitUntil(d -> d.findElements(By.tagName("h1")).size() == 1);
  }

  /** Fails when the current page does not fit the window (the shared layout check). */
  private void fits(String what) {
    assertThat(browser.layoutProblems()).as("%s at %d px", what, WIDTH).isEmpty();
  }

  /** The text of the job list row's cell {@code field}, as the polling script sets it. */
  private static String field(WebElement row, String field) {
    return row.findElement(By.cssSelector("[data-field='" + field + "']")).getText();
  }

  /** The ids of the main table's rows. */
  private List<String> mainRows() {
    return browser.driver().findElements(By.cssSelector("tr.row[data-row]")).stream()
        .map(r -> r.getAttribute("data-row"))
        .toList();
  }

  /**
   * Steps through the leaderboard with Tab from the top, as a person on a keyboard would, and
   * checks that every control of the filter form and of the compare form takes the focus on the way
   * (a radio group once, as browsers step into it).
   */
  private void assertReachableWithTab() {
    browser.script(
        "document.activeElement && document.activeElement.blur(); window.scrollTo(0, 0);");
    Set<String> wanted = new LinkedHashSet<>();
    for (WebElement control :
        browser.driver().findElements(By.cssSelector("form[aria-label=filters] [name]"))) {
      wanted.add("filters/" + control.getAttribute("name"));
    }
    for (WebElement control :
        browser.driver().findElements(By.cssSelector("#compare-form [name]"))) {
      wanted.add("compare/" + control.getAttribute("name"));
    }
    wanted.add("filters/button");
    wanted.add("compare/button");
    assertThat(wanted).contains("filters/language", "compare/a", "compare/b", "compare/task");

    Set<String> reached = new LinkedHashSet<>();
    int links = browser.driver().findElements(By.cssSelector("a[href]")).size();
    int budget = links + 100;
    for (int i = 0; i < budget && !reached.containsAll(wanted); i++) {
      Object focused =
          browser.script(
              "var e = document.activeElement;"
                  + " var form = e && e.closest('form');"
                  + " if (!form) return null;"
                  + " var which = form.id === 'compare-form' ? 'compare'"
                  + "   : form.getAttribute('aria-label') === 'filters' ? 'filters' : 'other';"
                  + " return which + '/' + (e.tagName === 'BUTTON' ? 'button' : e.name);");
      if (focused != null) {
        reached.add(focused.toString());
      }
      browser.tab(1);
    }
    assertThat(reached).as("controls reached with Tab").containsAll(wanted);
  }

  /** The cells' texts of {@code table}'s rows, header row first. */
  private static List<List<String>> table(WebElement table) {
    List<List<String>> rows = new ArrayList<>();
    for (WebElement tr : table.findElements(By.tagName("tr"))) {
      rows.add(
          tr.findElements(By.cssSelector("th, td")).stream().map(WebElement::getText).toList());
    }
    return rows;
  }

  /** The value the paired-test table gives the row {@code system} (its column after the name). */
  private static String pairedValue(List<List<String>> table, String system) {
    for (List<String> row : table) {
      for (int c = 0; c + 1 < row.size(); c++) {
        if (row.get(c).replaceAll("\\s+", "").equals(system)) {
          return row.get(c + 1);
        }
      }
    }
    throw new AssertionError("no row " + system + " in the paired-test table " + table);
  }

  /** The finished download named {@code name}, or null while it is still coming. */
  private Path downloaded(String name) {
    Path file = browser.downloads().resolve(name);
    return Files.isRegularFile(file) ? file : null;
  }

  /** The cells of the archive, by path in the job folder, with their bytes (Base64). */
  private Map<String, String> cellsIn(Path archive) throws IOException {
    Map<String, String> cells = new TreeMap<>();
    try (InputStream in = Files.newInputStream(archive);
        ZipInputStream zip = new ZipInputStream(in)) {
      for (ZipEntry entry = zip.getNextEntry(); entry != null; entry = zip.getNextEntry()) {
        if (entry.getName().startsWith(id + "/cells/")) {
          cells.put(
              entry.getName().substring(id.length() + 1),
              Base64.getEncoder().encodeToString(zip.readAllBytes()));
        }
      }
    }
    return cells;
  }

  /** The job folder's stored cells, as {@link #cellsIn} gives an archive's. */
  private Map<String, String> cellsOnDisk() throws IOException {
    Path folder = service.folder(id);
    Map<String, String> cells = new TreeMap<>();
    try (Stream<Path> files = Files.walk(folder.resolve("cells"))) {
      for (Path file : files.filter(Files::isRegularFile).toList()) {
        cells.put(
            folder.relativize(file).toString(),
            Base64.getEncoder().encodeToString(Files.readAllBytes(file)));
      }
    }
    return cells;
  }
}
