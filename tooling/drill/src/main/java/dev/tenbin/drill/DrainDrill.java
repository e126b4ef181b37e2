package dev.tenbin.drill;

import dev.tenbin.proto.eval.v1.Job;
import dev.tenbin.proto.eval.v1.JobState;
import dev.tenbin.scoring.beir.SyntheticBeir;
import io.grpc.ManagedChannel;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.SplittableRandom;

/**
 * Rolling updates in the middle of jobs: the four services run as separate processes (the eval
 * service calling the index, encoder and rerank services over loopback gRPC); each round submits a
 * job (BM25, a dense model, hybrid candidates, a bi-encoder reranker) over a synthetic dataset of
 * its own, so nothing of it is cached, and once the job runs, a service chosen at random gets
 * SIGTERM at a random moment (a graceful stop, as a rolling update or a node drain sends), its exit
 * is awaited and it is started again on the same port and data. Every job must end SUCCEEDED with
 * every planned cell stored once: 0 failed jobs, 0 cells lost, 0 computed twice, no crash.
 */
public final class DrainDrill {
  /** The longest wait, once the job runs, before the stop. */
  static final Duration MAX_DELAY = Duration.ofSeconds(4);

  private static final Duration JOB_TIMEOUT = Duration.ofMinutes(15);

  /**
   * A round of the drill.
   *
   * @param number 1, 2, ...
   * @param service the service stopped
   * @param delay how long after the job started running it is stopped
   */
  record Round(int number, TenbinService service, Duration delay) {}

  /**
   * How a round ended.
   *
   * @param round the round
   * @param during what the job was running when the stop came ("" when it had ended already)
   * @param state the job's final state (null when it did not end in time)
   * @param cells the job folder against its plan
   */
  record RoundResult(Round round, String during, JobState state, StoredCells cells) {
    boolean stoppedMidJob() {
      return !during.isEmpty();
    }

    boolean passed() {
      return state == JobState.JOB_STATE_SUCCEEDED
          && cells.missing() == 0
          && cells.storedTwice() == 0
          && cells.planned() > 0;
    }
  }

  private DrainDrill() {}

  /** The rounds: services and delays drawn from {@code seed}, the same for the same seed. */
  static List<Round> schedule(int rounds, long seed) {
    if (rounds < 1) {
      throw new IllegalArgumentException("--rounds must be at least 1, got " + rounds);
    }
    SplittableRandom random = new SplittableRandom(seed);
    TenbinService[] services = TenbinService.values();
    List<Round> schedule = new ArrayList<>();
    for (int r = 1; r <= rounds; r++) {
      schedule.add(
          new Round(
              r,
              services[random.nextInt(services.length)],
              Duration.ofMillis(random.nextLong(MAX_DELAY.toMillis() + 1))));
    }
    return schedule;
  }

  /** The drill's row from its rounds and the processes that crashed. */
  static DrillResult verdict(List<RoundResult> results, List<String> crashed, String load) {
    int failed = 0;
    int unfinished = 0;
    int lost = 0;
    int twice = 0;
    int planned = 0;
    int midJob = 0;
    int retries = 0;
    int[] byService = new int[TenbinService.values().length];
    for (RoundResult result : results) {
      byService[result.round().service().ordinal()]++;
      midJob += result.stoppedMidJob() ? 1 : 0;
      if (result.state() == null) {
        unfinished++;
      } else if (result.state() != JobState.JOB_STATE_SUCCEEDED) {
        failed++;
      }
      lost += result.cells().missing();
      twice += result.cells().storedTwice();
      planned += result.cells().planned();
      retries += result.cells().retries();
    }
    List<String> counts = new ArrayList<>();
    for (TenbinService service : TenbinService.values()) {
      counts.add(service.label() + " " + byService[service.ordinal()]);
    }
    boolean passed =
        results.stream().allMatch(RoundResult::passed) && crashed.isEmpty() && !results.isEmpty();
    String outcome =
        String.format(
            Locale.ROOT,
            "%d/%d jobs succeeded, %d failed%s; %d cells planned, %d lost, %d computed twice;"
                + " %d work-item retries after UNAVAILABLE%s",
            results.size() - failed - unfinished,
            results.size(),
            failed,
            unfinished > 0 ? ", " + unfinished + " did not end" : "",
            planned,
            lost,
            twice,
            retries,
            crashed.isEmpty() ? "" : "; crashed: " + String.join(", ", crashed));
    return new DrillResult(
        "SIGTERM (graceful stop) of a random service mid-job, restart",
        load,
        String.format(
            Locale.ROOT,
            "%d × SIGTERM at a random point 0-%d s into a running job (%s), %d of them while"
                + " the job ran; restart at once",
            results.size(),
            MAX_DELAY.toSeconds(),
            String.join(", ", counts),
            midJob),
        outcome,
        passed);
  }

  public static DrillResult run(
      Path work, String model, int rounds, int documents, long seed, DrillLog log)
      throws Exception {
    List<Round> schedule = schedule(rounds, seed);
    // The eval service is given the folder as its --data-root: it must exist before it starts.
    Path data = java.nio.file.Files.createDirectories(work.resolve("data"));
    List<RoundResult> results = new ArrayList<>();
    String load =
        "four services as processes; each round a job (BM25, dense:"
            + model
            + ", hybrid candidates, bi-encoder reranker) over "
            + documents
            + " synthetic documents of its own";
    try (ServiceFleet fleet = ServiceFleet.start(work, data, List.of())) {
      ManagedChannel eval = DrillClients.channel(fleet.port(TenbinService.EVAL));
      try {
        for (Round round : schedule) {
          results.add(round(work, data, model, documents, seed, round, fleet, eval, log));
        }
      } finally {
        DrillClients.close(eval);
      }
      List<String> crashed = fleet.crashed().stream().map(ChildTenbin::name).toList();
      DrillResult verdict = verdict(results, crashed, load);
      log.line(verdict.result());
      return verdict;
    }
  }

  private static RoundResult round(
      Path work,
      Path data,
      String model,
      int documents,
      long seed,
      Round round,
      ServiceFleet fleet,
      ManagedChannel eval,
      DrillLog log)
      throws Exception {
    String set = "set-" + round.number();
    SyntheticBeir.write(data.resolve(set), documents, 60, 20, seed + round.number());
    String folder = "drain-" + round.number();
    Job job =
        DrillClients.submit(
            eval,
            "name: drain-"
                + round.number()
                + "\ntask_sets: [drill.yaml]\nretrievers: [bm25, dense:"
                + model
                + "]\nrerankers: [dense:"
                + model
                + "]\ncandidates: {dense_model: "
                + model
                + ", sets: [hybrid]}\n",
            "drill.yaml",
            "name: drill\ntasks:\n  - {name: "
                + set
                + ", language: en, source: {path: "
                + set
                + "}}\n",
            data.toString(),
            folder);
    DrillClients.awaitJob(
        eval,
        job.getId(),
        j -> DrillClients.finished(j) || !j.getRunningCell().isEmpty(),
        Duration.ofMinutes(5));
    Thread.sleep(round.delay().toMillis());
    Optional<Job> before =
        DrillClients.awaitJob(eval, job.getId(), j -> true, Duration.ofSeconds(30));
    String during =
        before.filter(j -> !DrillClients.finished(j)).map(Job::getRunningCell).orElse("");
    if (during.isEmpty() && before.filter(j -> !DrillClients.finished(j)).isPresent()) {
      during = "between work items";
    }
    ChildTenbin stopped = fleet.terminate(round.service());
    int exit = stopped.awaitExit(Duration.ZERO);
    fleet.restart(round.service());
    Optional<Job> end =
        DrillClients.awaitJob(eval, job.getId(), DrillClients::finished, JOB_TIMEOUT);
    StoredCells cells = StoredCells.of(work.resolve("results").resolve(folder));
    RoundResult result = new RoundResult(round, during, end.map(Job::getState).orElse(null), cells);
    log.line(
        String.format(
            Locale.ROOT,
            "round %d: SIGTERM of the %s service %d ms after the job ran%s (exit %d), restarted;"
                + " job %s, %d cells planned, %d missing, %d stored twice, %d retries%s",
            round.number(),
            round.service().label(),
            round.delay().toMillis(),
            during.isEmpty() ? ", after it had ended" : ", during '" + during + "'",
            exit,
            end.map(j -> j.getState().name().replace("JOB_STATE_", "").toLowerCase(Locale.ROOT))
                .orElse("did not end"),
            cells.planned(),
            cells.missing(),
            cells.storedTwice(),
            cells.retries(),
            end.filter(j -> !j.getError().isEmpty())
                .map(j -> "; error: " + j.getError())
                .orElse("")));
    return result;
  }
}
