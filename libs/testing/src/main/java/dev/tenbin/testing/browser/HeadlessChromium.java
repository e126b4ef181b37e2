package dev.tenbin.testing.browser;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Assumptions;

/**
 * Headless Chromium for the browser tests: one process per page, each with its own profile in the
 * test's folder, run until the page's scripts settled ({@code --virtual-time-budget}) and answering
 * the page's DOM after them ({@code --dump-dom}) or a screenshot. Needs the Debian package {@code
 * chromium} ({@code /usr/bin/chromium}); {@code TENBIN_SKIP_BROWSER_TESTS=1} skips the tests that
 * use it on machines without it.
 */
public final class HeadlessChromium {
  /** Where the Debian package installs the browser. */
  public static final Path CHROMIUM = Path.of("/usr/bin/chromium");

  /** The environment variable that, set to 1, skips the browser tests. */
  public static final String SKIP_VARIABLE = "TENBIN_SKIP_BROWSER_TESTS";

  /** How long one page may take, start to DOM, before the test fails. */
  public static final long TIMEOUT_SECONDS = 90;

  private final Path dir;

  private HeadlessChromium(Path dir) {
    this.dir = dir;
  }

  /**
   * A browser whose profiles and outputs go under {@code dir}: skips the calling test when {@link
   * #SKIP_VARIABLE} is 1, and fails it, saying what to install, when there is no browser.
   */
  public static HeadlessChromium in(Path dir) {
    Assumptions.assumeFalse("1".equals(System.getenv(SKIP_VARIABLE)), SKIP_VARIABLE + "=1");
    if (!Files.isExecutable(CHROMIUM)) {
      throw new AssertionError(
          "headless Chromium is needed at "
              + CHROMIUM
              + ": install the Debian package 'chromium' (apt-get install chromium), or set "
              + SKIP_VARIABLE
              + "=1 to skip the browser tests");
    }
    return new HeadlessChromium(dir);
  }

  /** The DOM of {@code url} in a window {@code width} × {@code height} px once its scripts ran. */
  public String dumpDom(String url, int width, int height) throws IOException {
    return run(List.of("--window-size=" + width + "," + height, "--dump-dom", url));
  }

  /**
   * Runs the browser with {@code arguments} after the fixed headless ones and answers what it wrote
   * to standard output; fails when it does not finish in time or exits with an error.
   */
  public String run(List<String> arguments) throws IOException {
    Path profile = Files.createTempDirectory(dir, "profile");
    Path stdout = Files.createTempFile(dir, "chromium", ".out");
    Path stderr = Files.createTempFile(dir, "chromium", ".err");
    List<String> command =
        new ArrayList<>(
            List.of(
                CHROMIUM.toString(),
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-quic",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--user-data-dir=" + profile,
                "--virtual-time-budget=5000"));
    command.addAll(arguments);
    Process process =
        new ProcessBuilder(command)
            .redirectOutput(stdout.toFile())
            .redirectError(stderr.toFile())
            .start();
    try {
      if (!process.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
        process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        throw new AssertionError(
            "chromium did not finish within " + TIMEOUT_SECONDS + " s: " + tail(stderr));
      }
    } catch (InterruptedException e) {
      process.destroyForcibly();
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while chromium ran", e);
    }
    if (process.exitValue() != 0) {
      throw new AssertionError(
          "chromium exited with " + process.exitValue() + "; stderr: " + tail(stderr));
    }
    return Files.readString(stdout, StandardCharsets.UTF_8);
  }

  /**
   * The problems {@code layout-check.js} finds on the page {@code html} in a window {@code width}
   * px wide, joined by " | " ("" when none): the page is written to a file with the check appended
   * before its {@code </body>}, so it must hold its styles and scripts inline. The check fails a
   * page wider than the window, a main table ({@code #leaderboard}) that needs its scroll, SVG text
   * outside its chart, a clipped legend or cell, a chart point without its number, and a header or
   * a main-table cell broken inside a word.
   */
  public String layoutProblems(String html, int width) throws IOException {
    String check;
    try (var in = HeadlessChromium.class.getResourceAsStream("layout-check.js")) {
      check = new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
    int end = html.lastIndexOf("</body>");
    if (end < 0) {
      throw new AssertionError("no </body> in the page to append the layout check to");
    }
    Path checked = Files.createTempFile(dir, "checked", ".html");
    Files.writeString(
        checked,
        html.substring(0, end) + "<script>\n" + check + "</script>\n" + html.substring(end),
        StandardCharsets.UTF_8);
    String body = bodyTag(dumpDom(checked.toUri().toString(), width, 900));
    if (!body.contains("data-layout=\"ok\"") && !body.contains("data-layout-problems")) {
      throw new AssertionError("the layout check did not run: " + body);
    }
    Matcher problems = Pattern.compile("data-layout-problems=\"([^\"]*)\"").matcher(body);
    return problems.find() ? unescape(problems.group(1)) : "";
  }

  /** The opening {@code <body ...>} tag of {@code dom}, where the pages mark their checks. */
  public static String bodyTag(String dom) {
    Matcher body = Pattern.compile("<body[^>]*>").matcher(dom);
    if (!body.find()) {
      throw new AssertionError("no <body> in the page: " + dom);
    }
    return body.group();
  }

  /** The text of an attribute value as the DOM dump escapes it. */
  public static String unescape(String attribute) {
    return attribute
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&amp;", "&");
  }

  private static String tail(Path file) throws IOException {
    String text = Files.readString(file, StandardCharsets.UTF_8);
    return text.substring(Math.max(0, text.length() - 2000));
  }
}
