package dev.tenbin.eval.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * SIGTERM (what Ctrl-C's SIGINT also triggers) of a long command in its own JVM: the command says
 * what was kept and how to go on instead of exiting silently.
 */
class InterruptNoticeIT {
  @TempDir Path tmp;

  @Test
  void aStoppedRunSaysHowManyCellsAreStoredAndThatTheSameCommandResumes() throws Exception {
    Path out = tmp.resolve("out");
    Path log = tmp.resolve("run.log");
    Process run =
        new ProcessBuilder(TinyRunJob.write(tmp, out))
            .redirectErrorStream(true)
            .redirectOutput(log.toFile())
            .start();
    TinyRunJob.awaitFirstCell(run, out);
    assertThat(run.isAlive()).as("the run was still going when its first cell was stored").isTrue();
    run.destroy();
    assertThat(run.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(Files.readString(log))
        .containsPattern(
            "tenbin: interrupted; \\d+ of "
                + TinyRunJob.CELLS
                + " cells stored in "
                + java.util.regex.Pattern.quote(out.toString())
                + "; the same command resumes, computing only the missing cells");
  }

  @Test
  void aStoppedWatchSaysTheJobKeepsRunningAndHowToFollowItAgain() throws Exception {
    // Nothing listens on port 1: the watch keeps reconnecting until it is stopped.
    Path log = tmp.resolve("watch.log");
    Process watch = watchOfNoService(600, log);
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (System.nanoTime() < deadline
        && watch.isAlive()
        && !Files.readString(log).contains("reconnecting")) {
      Thread.sleep(20);
    }
    assertThat(watch.isAlive()).as(Files.readString(log)).isTrue();
    watch.destroy();
    assertThat(watch.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(Files.readString(log))
        .contains(
            "tenbin: interrupted; job job-000000000000 keeps running on the eval service: tenbin"
                + " job watch job-000000000000 follows it again");
  }

  @Test
  void aCommandThatEndsByItselfPrintsNoNotice() throws Exception {
    Path log = tmp.resolve("watch.log");
    Process watch = watchOfNoService(0, log);
    assertThat(watch.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(watch.exitValue()).isNotZero();
    assertThat(Files.readString(log)).contains("unavailable").doesNotContain("interrupted");
  }

  /** {@code tenbin job watch} in a child JVM against port 1, where nothing listens. */
  private Process watchOfNoService(int reconnectSeconds, Path log) throws IOException {
    List<String> command = new ArrayList<>(KilledChildJvm.command(TenbinCli.class.getName(), tmp));
    command.addAll(
        List.of(
            "job",
            "watch",
            "job-000000000000",
            "--endpoint",
            "127.0.0.1:1",
            "--reconnect-seconds",
            Integer.toString(reconnectSeconds)));
    return new ProcessBuilder(command)
        .redirectErrorStream(true)
        .redirectOutput(log.toFile())
        .start();
  }
}
