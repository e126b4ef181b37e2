package dev.tenbin.eval.web;

import static dev.tenbin.testing.browser.HeadlessChromium.bodyTag;
import static dev.tenbin.testing.browser.HeadlessChromium.unescape;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tenbin.eval.store.CellRecord;
import dev.tenbin.eval.testing.CellKeys;
import dev.tenbin.rpc.ServerSecurity;
import dev.tenbin.testing.browser.HeadlessChromium;
import java.io.ByteArrayInputStream;
import java.net.URLEncoder;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.ZipEntry;
import java.util.zip.ZipInputStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A person's way through the web UI of a real eval service, in headless Chromium ({@link
 * HeadlessChromium}) at 1,024 px: the job list while a submitted job runs and once it is done, the
 * job's page, the all-jobs leaderboard, the leaderboard filtered to a language as its form submits
 * it, the comparison of two systems as the leaderboard's compare form submits it, and the job's
 * archive from the link on its page. Every page must fit the window: the job pages mark {@code
 * data-fits} on their body once loaded, and the result pages pass the layout check ({@link
 * HeadlessChromium#layoutProblems}: no overflow, no clipped cell, no word broken in a header or the
 * main table).
 */
class EvalWebUiBrowserIT {
  private static final int WIDTH = 1024;

  @TempDir Path dir;
  private final EvalWebUiTest service = new EvalWebUiTest();
  private HeadlessChromium chromium;
  private String id;

  @BeforeEach
  void start() throws Exception {
    chromium = HeadlessChromium.in(dir);
    service.tmp = dir.resolve("service");
    service.moreCells = moreSystemsAndLanguages();
    id = service.start(ServerSecurity.plaintext());
  }

  /**
   * Besides the tiny job's two BM25 cells in English (nDCG@10 0.5 on tiny-a, 0.75 on tiny-b): a
   * dense system on them (0.25 and 0.5), and BM25 on a German task, tiny-de (0.4; the dense system
   * has none).
   */
  static List<CellRecord> moreSystemsAndLanguages() {
    return List.of(
        dense("c".repeat(64), "tiny-a", 0.25),
        dense("d".repeat(64), "tiny-b", 0.5),
        EvalWebUiTest.cell(
            "e".repeat(64),
            CellKeys.key()
                .dataset("tiny")
                .task("tiny-de")
                .language("de")
                .system("bm25", "bm25")
                .build(),
            0.4));
  }

  private static CellRecord dense(String fingerprint, String task, double ndcg) {
    return EvalWebUiTest.cell(
        fingerprint,
        CellKeys.key().dataset("tiny").task(task).system("dense", "tiny-e5").build(),
        ndcg);
  }

  @AfterEach
  void stop() {
    service.stop();
  }

  @Test
  void aPersonWatchesTheJobFinishThenFiltersComparesAndDownloadsWithinA1024PixelWindow()
      throws Exception {
    // the job runs: its progress shows on the job list
    service.awaitFirstStored();
    String running = dumpDom("/jobs");
    assertThat(bodyTag(running)).contains("data-fits=\"yes\"");
    assertThat(running).contains("data-job=\"" + id + "\"", ">RUNNING<", ">1 of 5<");

    // it finishes: the list's script shows it done
    service.awaitFinished(id);
    String done = dumpDom("/jobs");
    assertThat(bodyTag(done)).contains("data-fits=\"yes\"", "data-polled=\"ok\"");
    assertThat(done).contains(">SUCCEEDED<", ">5 of 5<");

    // the leaderboard over all jobs: both systems, the filter form offers both languages
    String leaderboard = pageOfService("/leaderboard");
    assertThat(mainRows(leaderboard))
        .containsExactlyInAnyOrder("bm25/base/retrieval", "dense:tiny-e5/base/retrieval");
    assertThat(options(leaderboard, "language")).containsExactly("de", "en");

    // filtered to German, as the form submits it: only BM25 has a German task
    String german = pageOfService("/leaderboard?language=de&nano=&from=&to=&aggregate=micro");
    assertThat(mainRows(german)).containsExactly("bm25/base/retrieval");
    assertThat(german).contains("1 of 5 stored cells");

    // the compare form, as submitted with its first two rows chosen
    List<String> a = selected(leaderboard, "a");
    List<String> b = selected(leaderboard, "b");
    assertThat(a).hasSize(1);
    assertThat(b).hasSize(1).doesNotContainAnyElementsOf(a);
    String compare =
        pageOfService("/compare?a=" + encode(a.getFirst()) + "&b=" + encode(b.getFirst()));
    assertThat(compare)
        .contains("<table id=\"compare-summary\">", "class=\"moved-query\"")
        .contains("Left out, stored for one of the two only: bench/tiny-de.");

    // the job's page links its archive: the whole folder, every stored cell in it
    String jobPage = dumpDom("/jobs/" + id);
    assertThat(bodyTag(jobPage)).contains("data-fits=\"yes\"");
    Matcher archiveLink = Pattern.compile("<a href=\"([^\"]*)\" id=\"archive\">").matcher(jobPage);
    assertThat(archiveLink.find()).as("the archive link").isTrue();
    HttpResponse<byte[]> archive =
        EvalWebUiTest.bytes(service.http(), unescape(archiveLink.group(1)));
    assertThat(archive.statusCode()).isEqualTo(200);
    assertThat(archive.headers().firstValue("Content-Type")).hasValue("application/zip");
    List<String> cells = new ArrayList<>();
    try (ZipInputStream zip = new ZipInputStream(new ByteArrayInputStream(archive.body()))) {
      for (ZipEntry entry = zip.getNextEntry(); entry != null; entry = zip.getNextEntry()) {
        if (entry.getName().startsWith(id + "/cells/") && entry.getName().endsWith(".json")) {
          cells.add(entry.getName());
        }
      }
    }
    assertThat(cells).hasSize(5);
  }

  @Test
  void theJobListFitsA1024PixelWindowAndItsScriptPollsTheJobs() throws Exception {
    service.awaitFinished(id);
    String dom = dumpDom("/jobs");
    assertThat(bodyTag(dom)).contains("data-fits=\"yes\"").contains("data-polled=\"ok\"");
    assertThat(dom).contains("data-job=\"" + id + "\"", ">SUCCEEDED<", ">5 of 5<");
  }

  @Test
  void theJobPageFitsA1024PixelWindow() throws Exception {
    service.awaitFinished(id);
    // a long unbroken file name, as a job folder can hold
    Files.writeString(
        service.folder(id).resolve("parity-" + "x".repeat(180) + ".json"), "{\"ok\": true}");
    String dom = dumpDom("/jobs/" + id);
    assertThat(bodyTag(dom)).contains("data-fits=\"yes\"");
    assertThat(dom).contains("<table id=\"cells\">", "<table id=\"files\">", "parity-xxx");
  }

  /**
   * A result page as the service serves it, after checking that it passes the layout check at 1,024
   * px and that its navigation is the site's.
   */
  private String pageOfService(String path) throws Exception {
    HttpResponse<String> response = service.http().get(path);
    assertThat(response.statusCode()).as(path).isEqualTo(200);
    String html = response.body();
    assertThat(html).as(path).contains("<header class=\"site-nav\">", ".site-nav{");
    assertThat(chromium.layoutProblems(html, WIDTH)).as("%s at %d px", path, WIDTH).isEmpty();
    return html;
  }

  /** The ids of the main table's rows. */
  private static List<String> mainRows(String html) {
    List<String> rows = new ArrayList<>();
    Matcher row = Pattern.compile("<tr class=\"row[^\"]*\" data-row=\"([^\"]*)\"").matcher(html);
    while (row.find()) {
      rows.add(unescape(row.group(1)));
    }
    return rows;
  }

  /** The values a select of the page offers. */
  private static List<String> options(String html, String select) {
    return optionValues(html, select, false);
  }

  /** The values a select of the page has chosen. */
  private static List<String> selected(String html, String select) {
    return optionValues(html, select, true);
  }

  private static List<String> optionValues(String html, String select, boolean chosenOnly) {
    Matcher list =
        Pattern.compile("<select name=\"" + select + "\"[^>]*>(.*?)</select>").matcher(html);
    assertThat(list.find()).as("select " + select).isTrue();
    List<String> values = new ArrayList<>();
    Matcher option =
        Pattern.compile("<option value=\"([^\"]*)\"( selected)?>").matcher(list.group(1));
    while (option.find()) {
      if (!chosenOnly || option.group(2) != null) {
        values.add(unescape(option.group(1)));
      }
    }
    return values;
  }

  private static String encode(String value) {
    return URLEncoder.encode(value, StandardCharsets.UTF_8);
  }

  private String dumpDom(String path) throws Exception {
    return chromium.dumpDom(service.http().base() + path, WIDTH, 800);
  }
}
