package dev.tenbin.eval.job;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenbin.core.Cancellation;
import dev.tenbin.eval.plan.Work;
import dev.tenbin.eval.plan.WorkFamily;
import io.grpc.Status;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A job whose process is stopping (SIGTERM of a rolling update): the services it calls hand their
 * calls back with UNAVAILABLE, embedded ones before the job manager hears of the stop. The run
 * stops and resumes at the next start; it is neither failed nor cancelled.
 */
class JobStopTest {
  private static final String SPEC = "name: j\ntask_sets: [t.yaml]\nretrievers: [bm25]\n";
  private static final String TASKS =
      "name: b\ntasks:\n  - {name: t, language: en, source: {hub: owner/data, revision: main}}\n";

  @TempDir Path tmp;

  /** BM25 work whose every service call is handed back, as by a stopping service. */
  private static final WorkFamily HANDED_BACK =
      new WorkFamily() {
        @Override
        public String name() {
          return "bm25";
        }

        @Override
        public java.util.Map<String, dev.tenbin.eval.result.CellResult> run(
            dev.tenbin.eval.plan.WorkContext runner, Work work, java.util.Set<String> missing) {
          throw Status.UNAVAILABLE.withDescription("the service is stopping").asRuntimeException();
        }
      };

  private static List<Work> plan() {
    return PlanFixtures.plan(
            SPEC, PlanFixtures.noModels(), PlanFixtures.noModels(), PlanFixtures.emptyTask("sha"))
        .stream()
        .map(
            w ->
                new Work(
                    HANDED_BACK, w.task(), w.model(), w.cells(), w.artifacts(), w.candidateKind()))
        .toList();
  }

  private JobOutcome run(Path out, Duration serviceRetry, boolean stopping) {
    return new JobRunner(
            null, out, new JobListener() {}, Cancellation.NEVER, null, serviceRetry, () -> stopping)
        .run(JobSpec.parse(SPEC, Path.of("/jobs/job.yaml")), plan());
  }

  @Test
  void aCallHandedBackWhileThisProcessStopsStopsTheRunInsteadOfFailingIt() throws Exception {
    JobOutcome outcome = run(tmp.resolve("out"), Duration.ofMinutes(5), true);

    assertThat(outcome.failures()).isEmpty();
    assertThat(outcome.cancelled()).isTrue();
    assertThat(Files.readString(tmp.resolve("out/events.jsonl")))
        .contains("\"stopped\"")
        .doesNotContain("work_failed");
  }

  @Test
  void whileTheProcessRunsOnAServiceUnavailablePastItsWaitStillFailsTheWorkItem() {
    JobOutcome outcome = run(tmp.resolve("out"), Duration.ZERO, false);

    assertThat(outcome.cancelled()).isFalse();
    assertThat(outcome.failures()).hasSize(1);
    assertThat(outcome.failureCode()).isEqualTo("UNAVAILABLE");
  }

  @Test
  void aRunEndedByItsServicesStoppingIsResumedAtTheNextStartNeitherFailedNorCancelled()
      throws Exception {
    List<JobManager.Executor> endings =
        List.of(
            // the services went away while the job was planned: the failure comes out of the run
            (job, listener, cancellation) -> {
              throw Status.UNAVAILABLE.withDescription("stopping").asRuntimeException();
            },
            // the runner stopped the run itself (a work item's call was handed back)
            (job, listener, cancellation) -> new JobOutcome(1, 0, 0, List.of(), true, 1));
    for (int i = 0; i < endings.size(); i++) {
      ServiceFolders folders =
          new ServiceFolders(tmp.resolve("state" + i), tmp.resolve("results" + i), List.of());
      AtomicBoolean stopping = new AtomicBoolean();
      JobManager.Executor ending = endings.get(i);
      JobManager first =
          new JobManager(
              JobAdmission.of(folders),
              JobTable.open(folders.stateDirectory()),
              (job, listener, cancellation) -> {
                stopping.set(true); // SIGTERM: the process is stopping from here on
                return ending.run(job, listener, cancellation);
              },
              stopping::get);
      String id =
          first
              .submit(
                  new JobRequest(
                      SPEC, List.of(new JobRequest.TaskSetDocument("t.yaml", TASKS, "")), "out"))
              .id();
      await(
          () ->
              first.events(id).stream().anyMatch(e -> e.path("event").asText().equals("stopped")));
      assertThat(first.get(id).state()).as("ending %d", i).isEqualTo(JobManager.State.RUNNING);
      first.close();

      JobManager next =
          new JobManager(
              JobAdmission.of(folders),
              JobTable.open(folders.stateDirectory()),
              (job, listener, cancellation) -> new JobOutcome(0, 0, 0, List.of(), false, 0),
              () -> false);
      try {
        await(() -> next.get(id).state() == JobManager.State.SUCCEEDED);
        assertThat(next.events(id))
            .extracting(e -> e.path("event").asText())
            .contains("stopped", "requeued", "resumed", "succeeded")
            .doesNotContain("failed", "cancelled");
      } finally {
        next.close();
      }
    }
  }

  private static void await(Supplier<Boolean> condition) throws InterruptedException {
    long until = System.nanoTime() + Duration.ofSeconds(20).toNanos();
    while (!condition.get()) {
      assertThat(System.nanoTime()).as("waited for the job").isLessThan(until);
      Thread.sleep(20);
    }
  }
}
