package dev.tenbin.eval.web;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import dev.tenbin.rpc.ServerSecurity;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Opens the job list and a job's page of a real eval service in headless Chromium at 1,024 px and
 * fails if any element is wider than the window (outside a scrolling table wrapper): each page
 * marks {@code data-fits} and {@code data-overflow} on its body once loaded. Needs the Debian
 * package {@code chromium} ({@code /usr/bin/chromium}); set {@code TENBIN_SKIP_BROWSER_TESTS=1} to
 * skip on machines without it.
 */
class EvalWebUiBrowserIT {
  private static final Path CHROMIUM = Path.of("/usr/bin/chromium");
  private static final long TIMEOUT_SECONDS = 90;

  @TempDir Path dir;
  private final EvalWebUiTest service = new EvalWebUiTest();
  private String id;

  @BeforeEach
  void start() throws Exception {
    Assumptions.assumeFalse(
        "1".equals(System.getenv("TENBIN_SKIP_BROWSER_TESTS")), "TENBIN_SKIP_BROWSER_TESTS=1");
    if (!Files.isExecutable(CHROMIUM)) {
      fail(
          "headless Chromium is needed at "
              + CHROMIUM
              + ": install the Debian package 'chromium', or set TENBIN_SKIP_BROWSER_TESTS=1");
    }
    service.tmp = dir.resolve("service");
    id = service.start(ServerSecurity.plaintext());
    service.awaitFinished(id);
    // a long unbroken file name, as a job folder can hold
    Files.writeString(
        service.folder(id).resolve("parity-" + "x".repeat(180) + ".json"), "{\"ok\": true}");
  }

  @AfterEach
  void stop() {
    service.stop();
  }

  @Test
  void theJobListFitsA1024PixelWindowAndItsScriptPollsTheJobs() throws Exception {
    String dom = dumpDom("/jobs");
    assertThat(bodyTag(dom)).contains("data-fits=\"yes\"").contains("data-polled=\"ok\"");
    assertThat(dom).contains("data-job=\"" + id + "\"", ">SUCCEEDED<", ">2 of 2<");
  }

  @Test
  void theJobPageFitsA1024PixelWindow() throws Exception {
    String dom = dumpDom("/jobs/" + id);
    assertThat(bodyTag(dom)).contains("data-fits=\"yes\"");
    assertThat(dom).contains("<table id=\"cells\">", "<table id=\"files\">", "parity-xxx");
  }

  private String url(String path) {
    return service.http().base() + path;
  }

  private String dumpDom(String path) throws Exception {
    return run(List.of("--window-size=1024,800", "--dump-dom", url(path)));
  }

  private static String bodyTag(String dom) {
    Matcher body = Pattern.compile("<body[^>]*>").matcher(dom);
    assertThat(body.find()).as(dom).isTrue();
    return body.group();
  }

  private String run(List<String> arguments) throws Exception {
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
    if (!process.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
      process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
      fail("chromium did not finish within " + TIMEOUT_SECONDS + " s: " + tail(stderr));
    }
    assertThat(process.exitValue()).as("chromium exit status; stderr: %s", tail(stderr)).isZero();
    return Files.readString(stdout, StandardCharsets.UTF_8);
  }

  private static String tail(Path file) throws IOException {
    String text = Files.readString(file, StandardCharsets.UTF_8);
    return text.substring(Math.max(0, text.length() - 2000));
  }
}
