package dev.tenbin.eval.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code tenbin serve eval} in a child JVM ({@link KilledChildJvm}) on a loopback port of its
 * choosing, over the folders under a test's folder: {@code state}, {@code results}, {@code cache},
 * with the given data and models folders. Its output goes to a log file, from which {@link
 * #endpoint} reads the port it listens on.
 */
final class EvalServiceProcess {
  private static final Pattern LISTENING =
      Pattern.compile("eval-service listening on [^:]+:(\\d+)");

  private EvalServiceProcess() {}

  static Process start(Path testFolder, Path log, Path data, Path models) throws IOException {
    List<String> command =
        new ArrayList<>(KilledChildJvm.command(TenbinCli.class.getName(), testFolder));
    command.addAll(
        List.of(
            "serve",
            "eval",
            "--host",
            "127.0.0.1",
            "--port",
            "0",
            "--state-dir",
            testFolder.resolve("state").toString(),
            "--results-root",
            testFolder.resolve("results").toString(),
            "--data-root",
            data.toString(),
            "--models-dir",
            models.toString(),
            "--cache-dir",
            testFolder.resolve("cache").toString()));
    return new ProcessBuilder(command)
        .redirectErrorStream(true)
        .redirectOutput(log.toFile())
        .start();
  }

  /** {@code 127.0.0.1:PORT} once the service says it listens; fails when it exits first. */
  static String endpoint(Process service, Path log) throws IOException, InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (System.nanoTime() < deadline && service.isAlive()) {
      Matcher matcher = LISTENING.matcher(Files.readString(log));
      if (matcher.find()) {
        return "127.0.0.1:" + matcher.group(1);
      }
      Thread.sleep(20);
    }
    throw new AssertionError("the eval service did not start:\n" + Files.readString(log));
  }
}
