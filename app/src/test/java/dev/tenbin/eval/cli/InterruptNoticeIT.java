package dev.tenbin.eval.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenbin.testing.data.TinyBeir;
import dev.tenbin.testing.models.TinyModels;
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
    TinyBeir.write(tmp.resolve("data").resolve("tiny"));
    Path models = tmp.resolve("models");
    TinyModels.dense(models, "tiny-dense", false);
    Files.writeString(
        tmp.resolve("tasks.yaml"),
        "name: b\ntasks:\n  - {name: tiny, language: en, source: {path: data/tiny}}\n"
            + "  - {name: tiny2, language: en, source: {path: data/tiny}}\n");
    Path spec = tmp.resolve("job.yaml");
    Files.writeString(
        spec,
        "task_sets: [tasks.yaml]\nretrievers:\n  - bm25\n"
            + "  - {retriever: dense:tiny-dense, variants: [base, int8, binary]}\n"
            + "  - light:tiny-dense\n");
    Path out = tmp.resolve("out");
    List<String> command = new ArrayList<>(KilledChildJvm.command(TenbinCli.class.getName(), tmp));
    command.addAll(
        List.of(
            "run",
            spec.toString(),
            "--out",
            out.toString(),
            "--models-dir",
            models.toString(),
            "--cache-dir",
            tmp.resolve("cache").toString(),
            "--progress",
            "lines",
            "--no-reports"));
    Path log = tmp.resolve("run.log");
    Process run =
        new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    Path events = out.resolve("events.jsonl");
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
    while (System.nanoTime() < deadline
        && run.isAlive()
        && !(Files.exists(events) && Files.readString(events).contains("cell_stored"))) {
      Thread.sleep(5);
    }
    assertThat(run.isAlive()).as("the run was still going when its first cell was stored").isTrue();
    run.destroy();
    assertThat(run.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(Files.readString(log))
        .containsPattern(
            "tenbin: interrupted; \\d+ of 14 cells stored in "
                + java.util.regex.Pattern.quote(out.toString())
                + "; the same command resumes, computing only the missing cells");
  }

  @Test
  void aStoppedWatchSaysTheJobKeepsRunningAndHowToFollowItAgain() throws Exception {
    List<String> command = new ArrayList<>(KilledChildJvm.command(TenbinCli.class.getName(), tmp));
    // Nothing listens on port 1: the watch keeps reconnecting until it is stopped.
    command.addAll(
        List.of(
            "job",
            "watch",
            "job-000000000000",
            "--endpoint",
            "127.0.0.1:1",
            "--reconnect-seconds",
            "600"));
    Path log = tmp.resolve("watch.log");
    Process watch =
        new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
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
    List<String> command = new ArrayList<>(KilledChildJvm.command(TenbinCli.class.getName(), tmp));
    command.addAll(
        List.of(
            "job",
            "watch",
            "job-000000000000",
            "--endpoint",
            "127.0.0.1:1",
            "--reconnect-seconds",
            "0"));
    Path log = tmp.resolve("watch.log");
    Process watch =
        new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    assertThat(watch.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(watch.exitValue()).isNotZero();
    assertThat(Files.readString(log)).contains("unavailable").doesNotContain("interrupted");
  }
}
