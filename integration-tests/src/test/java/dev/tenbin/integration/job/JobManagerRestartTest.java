package dev.tenbin.integration.job;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenbin.core.Cancellation;
import dev.tenbin.eval.job.AdmittedJob;
import dev.tenbin.eval.job.JobAdmission;
import dev.tenbin.eval.job.JobListener;
import dev.tenbin.eval.job.JobManager;
import dev.tenbin.eval.job.JobOutcome;
import dev.tenbin.eval.job.JobRecord;
import dev.tenbin.eval.job.JobRequest;
import dev.tenbin.eval.job.JobTable;
import dev.tenbin.eval.job.ServiceFolders;
import dev.tenbin.eval.store.CellKey;
import dev.tenbin.eval.store.CellRecord;
import dev.tenbin.eval.store.ResultStore;
import dev.tenbin.eval.store.StoredDoc;
import dev.tenbin.eval.store.StoredQuery;
import dev.tenbin.eval.testing.CellKeys;
import dev.tenbin.scoring.metrics.TieAwareValue;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Jobs survive the service: a new manager over the same state folder lists every job, resumes the
 * ones that were queued or running (computing only the cells not yet stored) and never resumes a
 * job whose cancellation was asked for. The executor here behaves as the real runner does: it
 * stores cells one at a time and skips those already stored.
 */
class JobManagerRestartTest {
  private static final int CELLS = 5;
  private static final String TASKS =
      "name: b\ntasks:\n  - {name: t, language: en, source: {hub: o/hub, revision: main}}\n";

  @TempDir Path tmp;
  private final Map<String, AtomicInteger> computed = new ConcurrentHashMap<>();
  private final AtomicInteger runs = new AtomicInteger();
  private JobManager manager;

  @AfterEach
  void close() {
    if (manager != null) {
      manager.close();
    }
  }

  private ServiceFolders folders() {
    return new ServiceFolders(tmp.resolve("state"), tmp.resolve("results"), List.of());
  }

  private static JobRequest request(String out) {
    return new JobRequest(
        "name: r\ntask_sets: [tasks.yaml]\nretrievers: [bm25]\n",
        List.of(new JobRequest.TaskSetDocument("tasks.yaml", TASKS, "")),
        out);
  }

  /**
   * Stores CELLS cells one by one, skipping stored ones; after {@code pauseAfter} computed cells it
   * waits to be cancelled.
   */
  private JobOutcome resumable(
      AdmittedJob job,
      JobListener listener,
      Cancellation cancellation,
      int pauseAfter,
      CountDownLatch paused) {
    runs.incrementAndGet();
    ResultStore store = ResultStore.open(job.directory());
    int stored = 0;
    for (int i = 0; i < CELLS; i++) {
      stored += store.contains(fingerprint(i)) ? 1 : 0;
    }
    listener.planned(CELLS, stored);
    int computedNow = 0;
    for (int i = 0; i < CELLS; i++) {
      if (store.contains(fingerprint(i))) {
        continue;
      }
      if (cancellation.isCancelled()) {
        return new JobOutcome(CELLS, stored, computedNow, List.of(), true, 1);
      }
      computed.computeIfAbsent(fingerprint(i), f -> new AtomicInteger()).incrementAndGet();
      CellRecord cell = cell(fingerprint(i));
      store.append(cell);
      listener.cellStored(cell);
      computedNow++;
      if (computedNow == pauseAfter) {
        paused.countDown();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!cancellation.isCancelled() && System.nanoTime() < deadline) {
          Thread.onSpinWait();
        }
      }
    }
    return new JobOutcome(CELLS, stored, computedNow, List.of(), false, 1);
  }

  private static String fingerprint(int i) {
    return String.format("%064x", i + 1);
  }

  static CellRecord cell(String fingerprint) {
    CellKey key =
        CellKeys.key()
            .dataset("tiny")
            .task("tiny-" + fingerprint.substring(60))
            .system("bm25", "bm25")
            .build();
    return new CellRecord(
        CellRecord.FORMAT_VERSION,
        fingerprint,
        key,
        Map.of(),
        Map.of(),
        Map.of("ndcg@10", 0.5),
        Map.of("ndcg@10", new TieAwareValue(0.5, 0.5, 0.5, 0, 0)),
        Map.of(),
        Map.of(),
        List.of(
            new StoredQuery("q1", Map.of("ndcg@10", 0.5), List.of(new StoredDoc("d1", 1.5, 1)))),
        "2026-11-23T00:00:00Z");
  }

  private JobManager open(int pauseAfter, CountDownLatch paused) {
    return JobManager.open(
        folders(),
        (job, listener, cancellation) ->
            resumable(job, listener, cancellation, pauseAfter, paused));
  }

  private static JobManager.Snapshot awaitEnd(JobManager manager, String id)
      throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (!manager.get(id).state().finished() && System.nanoTime() < deadline) {
      Thread.sleep(5);
    }
    return manager.get(id);
  }

  @Test
  void aRunningJobStoppedByAShutdownResumesInTheNextManagerWithNoCellComputedTwice()
      throws Exception {
    CountDownLatch paused = new CountDownLatch(1);
    manager = open(2, paused);
    String id = manager.submit(request("out")).id();
    assertThat(paused.await(30, TimeUnit.SECONDS)).isTrue();
    manager.close();
    try (JobTable table = JobTable.open(tmp.resolve("state"))) {
      assertThat(table.load().getFirst().state()).isEqualTo(JobManager.State.RUNNING);
    }

    manager = open(0, new CountDownLatch(1));
    JobManager.Snapshot end = awaitEnd(manager, id);
    assertThat(end.state()).isEqualTo(JobManager.State.SUCCEEDED);
    assertThat(end.cellsTotal()).isEqualTo(CELLS);
    assertThat(end.cellsCached()).isEqualTo(2);
    assertThat(end.cellsDone()).isEqualTo(CELLS);
    assertThat(runs).hasValue(2);
    assertThat(computed)
        .hasSize(CELLS)
        .allSatisfy((fingerprint, times) -> assertThat(times).hasValue(1));
    assertThat(ResultStore.existing(end.outputDirectory(), "out").readAll()).hasSize(CELLS);
  }

  @Test
  void aJobRecordedAsRunningWhenTheServiceDiedIsResumedAtStart() throws Exception {
    // What a kill -9 leaves: the table says running, the folder holds some cells.
    JobAdmission admission = JobAdmission.of(folders());
    AdmittedJob admitted = admission.admit("job-0000000000aa", request("crashed"));
    ResultStore store = ResultStore.open(admitted.directory());
    store.append(cell(fingerprint(0)));
    store.append(cell(fingerprint(3)));
    try (JobTable table = JobTable.open(tmp.resolve("state"))) {
      table.save(
          new JobRecord(
              "job-0000000000aa",
              1,
              "r",
              JobManager.State.RUNNING,
              false,
              request("crashed"),
              admitted.directory(),
              Instant.now(),
              Instant.now(),
              null,
              CELLS,
              2,
              0,
              ""));
    }
    manager = open(0, new CountDownLatch(1));
    JobManager.Snapshot end = awaitEnd(manager, "job-0000000000aa");
    assertThat(end.state()).isEqualTo(JobManager.State.SUCCEEDED);
    assertThat(computed.keySet())
        .containsExactlyInAnyOrder(fingerprint(1), fingerprint(2), fingerprint(4));
    assertThat(ResultStore.existing(admitted.directory(), "out").readAll()).hasSize(CELLS);
    assertThat(manager.events("job-0000000000aa"))
        .extracting(e -> e.get("event").asText())
        .containsSubsequence("requeued", "resumed", "succeeded");
  }

  @Test
  void aJobWhoseCancellationWasAskedIsNeverResumed() throws Exception {
    CountDownLatch paused = new CountDownLatch(1);
    manager = open(1, paused);
    String cancelled = manager.submit(request("c")).id();
    assertThat(paused.await(30, TimeUnit.SECONDS)).isTrue();
    manager.cancel(cancelled);
    assertThat(awaitEnd(manager, cancelled).state()).isEqualTo(JobManager.State.CANCELLED);
    manager.close();

    // And one whose cancellation was recorded but the service died before it ended.
    JobAdmission admission = JobAdmission.of(folders());
    try (JobTable table = JobTable.open(tmp.resolve("state"))) {
      table.save(
          new JobRecord(
              "job-0000000000bb",
              9,
              "r",
              JobManager.State.RUNNING,
              true,
              request("d"),
              admission.admit("job-0000000000bb", request("d")).directory(),
              Instant.now(),
              Instant.now(),
              null,
              0,
              0,
              0,
              ""));
    }
    int runsBefore = runs.get();
    manager = open(0, new CountDownLatch(1));
    assertThat(manager.get(cancelled).state()).isEqualTo(JobManager.State.CANCELLED);
    assertThat(manager.get("job-0000000000bb").state()).isEqualTo(JobManager.State.CANCELLED);
    Thread.sleep(200);
    assertThat(runs).hasValue(runsBefore);
    assertThat(manager.list())
        .extracting(JobManager.Snapshot::id)
        .containsExactly(cancelled, "job-0000000000bb");
  }

  @Test
  void finishedAndQueuedJobsAreListedAgainAfterARestartAndTheQueuedOnesRun() throws Exception {
    CountDownLatch paused = new CountDownLatch(1);
    manager = open(CELLS, paused);
    String first = manager.submit(request("a")).id();
    assertThat(paused.await(30, TimeUnit.SECONDS)).isTrue();
    String second = manager.submit(request("b")).id();
    assertThat(manager.get(second).state()).isEqualTo(JobManager.State.QUEUED);
    manager.close();

    manager = open(0, new CountDownLatch(1));
    JobManager.Snapshot a = awaitEnd(manager, first);
    JobManager.Snapshot b = awaitEnd(manager, second);
    assertThat(a.state()).isEqualTo(JobManager.State.SUCCEEDED);
    assertThat(b.state()).isEqualTo(JobManager.State.SUCCEEDED);
    manager.close();

    manager = open(0, new CountDownLatch(1));
    int runsBefore = runs.get();
    List<JobManager.Snapshot> listed = manager.list();
    assertThat(listed).extracting(JobManager.Snapshot::id).containsExactly(first, second);
    JobManager.Snapshot again = manager.get(second);
    assertThat(again.state()).isEqualTo(JobManager.State.SUCCEEDED);
    assertThat(again.cellsDone()).isEqualTo(CELLS);
    assertThat(again.name()).isEqualTo("r");
    assertThat(again.submitted()).isEqualTo(b.submitted());
    assertThat(again.ended()).isEqualTo(b.ended());
    assertThat(again.outputDirectory()).isEqualTo(b.outputDirectory());
    Thread.sleep(100);
    assertThat(runs).hasValue(runsBefore);
  }

  @Test
  void theServiceLogsTheJobIdAtEveryStateChange() throws Exception {
    PrintStream original = System.err;
    ByteArrayOutputStream captured = new ByteArrayOutputStream();
    System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
    String id;
    try {
      CountDownLatch paused = new CountDownLatch(1);
      manager = open(1, paused);
      id = manager.submit(request("logged")).id();
      assertThat(paused.await(30, TimeUnit.SECONDS)).isTrue();
      manager.cancel(id);
      awaitEnd(manager, id);
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
      while (!captured.toString(StandardCharsets.UTF_8).contains(id + " cancelled")
          && System.nanoTime() < deadline) {
        Thread.sleep(5); // the end is logged just after the state changes
      }
    } finally {
      System.setErr(original);
    }
    String log = captured.toString(StandardCharsets.UTF_8);
    assertThat(log)
        .contains("job " + id + " submitted")
        .contains("job " + id + " started")
        .contains("job " + id + " cancel requested")
        .contains("job " + id + " cancelled");
  }
}
