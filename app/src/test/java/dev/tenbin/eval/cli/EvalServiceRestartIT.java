package dev.tenbin.eval.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tenbin.core.Cancellation;
import dev.tenbin.eval.job.JobLauncher;
import dev.tenbin.eval.job.JobListener;
import dev.tenbin.eval.job.JobManager;
import dev.tenbin.eval.job.JobRequest;
import dev.tenbin.eval.job.ServiceFolders;
import dev.tenbin.eval.store.CellRecord;
import dev.tenbin.eval.store.ResultStore;
import dev.tenbin.proto.eval.v1.EvalServiceGrpc;
import dev.tenbin.proto.eval.v1.GetJobRequest;
import dev.tenbin.proto.eval.v1.Job;
import dev.tenbin.proto.eval.v1.JobState;
import dev.tenbin.testing.data.TinyBeir;
import dev.tenbin.testing.models.TinyModels;
import io.grpc.ManagedChannel;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Jobs of the eval service survive it, with the real runner: stopped mid-job (in-process, a new
 * manager over the same state folder) or killed with SIGKILL ({@code tenbin serve eval} in its own
 * JVM, then started again), the job resumes and completes with every planned cell stored once and
 * none computed twice.
 */
class EvalServiceRestartIT {
  @TempDir Path tmp;

  /**
   * The cells stored per fingerprint according to a job folder's events log (a line torn by a kill
   * is skipped).
   */
  private static Map<String, Integer> storedEvents(Path out) throws Exception {
    Map<String, Integer> stored = new HashMap<>();
    for (String line : Files.readAllLines(out.resolve("events.jsonl"), StandardCharsets.UTF_8)) {
      if (line.isBlank() || !line.endsWith("}")) {
        continue;
      }
      JsonNode event = ResultStore.JSON.readTree(line);
      if (event.get("event").asText().equals("cell_stored")) {
        stored.merge(event.get("detail").asText().split(" ")[0], 1, Integer::sum);
      }
    }
    return stored;
  }

  private static List<String> planned(Path out) throws Exception {
    List<String> planned = new ArrayList<>();
    ResultStore.JSON
        .readTree(out.resolve("job.json").toFile())
        .get("cells")
        .forEach(c -> planned.add(c.get("fingerprint").asText()));
    return planned;
  }

  @Test
  void aJobStoppedByAShutdownMidwayIsResumedByTheNextManagerWithTheRealRunner() throws Exception {
    Path data = tmp.resolve("data");
    for (String task : List.of("a", "b", "c")) {
      TinyBeir.write(data.resolve(task));
    }
    String tasks =
        "name: b\ntasks:\n"
            + "  - {name: a, language: en, source: {path: a}}\n"
            + "  - {name: b, language: en, source: {path: b}}\n"
            + "  - {name: c, language: en, source: {path: c}}\n";
    JobRequest request =
        new JobRequest(
            "name: r\ntask_sets: [t.yaml]\nretrievers: [bm25]\n",
            List.of(new JobRequest.TaskSetDocument("t.yaml", tasks, data.toString())),
            "out");
    ServiceFolders folders =
        new ServiceFolders(tmp.resolve("state"), tmp.resolve("results"), List.of(data));
    JobLauncher launcher =
        new JobLauncher(
            new JobLauncher.Options(null, null, null, tmp.resolve("models"), tmp.resolve("cache")));
    CountDownLatch firstCell = new CountDownLatch(1);
    JobManager first =
        JobManager.open(
            folders,
            (job, listener, cancellation) ->
                launcher.run(
                    job.spec(),
                    job.taskSets(),
                    job.directory(),
                    pauseAfterFirstCell(listener, cancellation, firstCell),
                    cancellation));
    String id = first.submit(request).id();
    assertThat(firstCell.await(120, TimeUnit.SECONDS)).isTrue();
    first.close();
    Path out = first.directory(id);
    int storedAtStop = ResultStore.existing(out, "out").readAll().size();
    assertThat(storedAtStop).isBetween(1, 2);

    JobManager second =
        JobManager.open(
            folders,
            (job, listener, cancellation) ->
                launcher.run(job.spec(), job.taskSets(), job.directory(), listener, cancellation));
    try {
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
      while (!second.get(id).state().finished() && System.nanoTime() < deadline) {
        Thread.sleep(10);
      }
      JobManager.Snapshot end = second.get(id);
      assertThat(end.state()).as(end.error()).isEqualTo(JobManager.State.SUCCEEDED);
      assertThat(end.cellsTotal()).isEqualTo(3);
      assertThat(end.cellsCached()).isEqualTo(storedAtStop);
      assertThat(ResultStore.existing(out, "out").readAll()).hasSize(3);
      assertThat(storedEvents(out))
          .hasSize(3)
          .allSatisfy((fingerprint, times) -> assertThat(times).as(fingerprint).isEqualTo(1));
      assertThat(second.events(id))
          .extracting(e -> e.get("event").asText())
          .containsSubsequence(
              "submitted", "started", "stopped", "requeued", "resumed", "succeeded");
    } finally {
      second.close();
    }
  }

  /**
   * Forwards to {@code listener}; after the first stored cell it waits until the run is cancelled
   * (the shutdown).
   */
  private static JobListener pauseAfterFirstCell(
      JobListener listener, Cancellation cancellation, CountDownLatch firstCell) {
    return new JobListener() {
      @Override
      public void planned(int total, int stored) {
        listener.planned(total, stored);
      }

      @Override
      public void workStarted(dev.tenbin.eval.plan.Work work, int missingCells) {
        listener.workStarted(work, missingCells);
      }

      @Override
      public void cellStored(CellRecord record) {
        listener.cellStored(record);
        firstCell.countDown();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (!cancellation.isCancelled() && System.nanoTime() < deadline) {
          Thread.onSpinWait();
        }
      }

      @Override
      public void workFailed(dev.tenbin.eval.plan.Work work, String message) {
        listener.workFailed(work, message);
      }
    };
  }

  @Test
  void aServiceKilledWithSigkillMidJobResumesTheJobAtItsNextStartWithNoCellLostOrComputedTwice()
      throws Exception {
    Path data = tmp.resolve("data");
    TinyBeir.write(data.resolve("tiny"));
    Path models = tmp.resolve("models");
    TinyModels.dense(models, "tiny-dense", false);
    Path client = Files.createDirectories(tmp.resolve("client"));
    Files.writeString(
        client.resolve("tasks.yaml"),
        "name: b\ntasks:\n  - {name: tiny, language: en, source: {path: ../data/tiny}}\n"
            + "  - {name: tiny2, language: en, source: {path: ../data/tiny}}\n");
    Path spec = client.resolve("job.yaml");
    Files.writeString(
        spec,
        "task_sets: [tasks.yaml]\nretrievers:\n  - bm25\n  - {retriever: dense:tiny-dense, variants: [base, int8, binary]}\n"
            + "  - light:tiny-dense\n");

    Files.createDirectories(tmp.resolve("results"));
    Path out = tmp.resolve("results").toRealPath().resolve("job");
    Process first = EvalServiceProcess.start(tmp, tmp.resolve("first.log"), data, models);
    String id;
    try {
      CliRunner submit =
          CliRunner.run(
              "job",
              "submit",
              spec.toString(),
              "--out",
              "job",
              "--endpoint",
              EvalServiceProcess.endpoint(first, tmp.resolve("first.log")));
      assertThat(submit.exitCode()).as(submit.err()).isZero();
      id = submit.out().strip();
      Path events = out.resolve("events.jsonl");
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
      while (System.nanoTime() < deadline
          && first.isAlive()
          && !(Files.exists(events) && Files.readString(events).contains("cell_stored"))) {
        Thread.sleep(5);
      }
      assertThat(first.isAlive())
          .as("the service was still running the job when its first cell was stored")
          .isTrue();
    } finally {
      first.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
    }
    int storedAtKill = ResultStore.existing(out, "job").readAll().size();
    assertThat(storedAtKill).isBetween(1, 13);
    assertThat(Files.readString(tmp.resolve("first.log")))
        .contains("job " + id + " submitted")
        .contains("job " + id + " started");

    Process second = EvalServiceProcess.start(tmp, tmp.resolve("second.log"), data, models);
    try {
      String endpoint = EvalServiceProcess.endpoint(second, tmp.resolve("second.log"));
      ManagedChannel channel = NettyChannelBuilder.forTarget(endpoint).usePlaintext().build();
      Job job;
      try {
        var stub = EvalServiceGrpc.newBlockingStub(channel);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(180);
        do {
          Thread.sleep(50);
          job =
              stub.withDeadlineAfter(10, TimeUnit.SECONDS)
                  .getJob(GetJobRequest.newBuilder().setJobId(id).build())
                  .getJob();
        } while (!(job.getState() == JobState.JOB_STATE_SUCCEEDED
                || job.getState() == JobState.JOB_STATE_FAILED
                || job.getState() == JobState.JOB_STATE_CANCELLED)
            && System.nanoTime() < deadline);
      } finally {
        channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
      }
      String log = Files.readString(tmp.resolve("second.log"));
      assertThat(job.getState())
          .as(job.getError() + "\n" + log)
          .isEqualTo(JobState.JOB_STATE_SUCCEEDED);
      assertThat(job.getCellsTotal()).isEqualTo(14);
      assertThat(job.getCellsCached()).isEqualTo(storedAtKill);
      assertThat(log)
          .contains("job " + id + " queued again after a restart")
          .contains("job " + id + " resumed")
          .contains("job " + id + " succeeded");

      CliRunner list = CliRunner.run("job", "list", "--endpoint", endpoint);
      assertThat(list.out()).contains(id).contains("succeeded").contains("14/14");
    } finally {
      second.destroy();
      second.waitFor(60, TimeUnit.SECONDS);
    }

    ResultStore store = ResultStore.existing(out, "job");
    assertThat(store.readAll()).hasSize(14);
    Map<String, Integer> stored = storedEvents(out);
    // Each cell was computed and stored once: no fingerprint is logged twice. (A kill between a
    // cell's
    // rename and its log line can leave that one cell unlogged; it is still never recomputed.)
    assertThat(stored)
        .allSatisfy((fingerprint, times) -> assertThat(times).as(fingerprint).isEqualTo(1));
    assertThat(stored.size()).isBetween(13, 14);
    assertThat(planned(out)).hasSize(14).allMatch(store::contains);
  }
}
