package dev.tenbin.drill;

import dev.tenbin.proto.eval.v1.Job;
import dev.tenbin.proto.eval.v1.JobState;
import dev.tenbin.scoring.beir.SyntheticBeir;
import io.grpc.ManagedChannel;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.function.Predicate;

/**
 * {@code kill -9} of one service in the middle of a job, then a restart: the four services run as
 * separate processes (the eval service calling the index, encoder and rerank services over loopback
 * gRPC), a job over BM25, a dense model with two variants, candidate sets and a bi-encoder reranker
 * is submitted, and the chosen service is killed with SIGKILL while the job uses it, then started
 * again on the same port and data. The job must end SUCCEEDED with every planned cell stored and
 * none stored twice.
 */
public final class KillRestartDrill {
  private KillRestartDrill() {}

  public static DrillResult run(
      Path work, TenbinService target, String model, int documents, long seed, DrillLog log)
      throws Exception {
    Path data = work.resolve("data");
    SyntheticBeir.write(data.resolve("set"), documents, 120, 20, seed);
    try (ServiceFleet fleet = ServiceFleet.start(work, data, List.of())) {
      ManagedChannel eval = DrillClients.channel(fleet.port(TenbinService.EVAL));
      try {
        Job job =
            DrillClients.submit(
                eval,
                "name: kill-"
                    + target.label()
                    + "\ntask_sets: [drill.yaml]\nretrievers:\n  - bm25\n"
                    + "  - {retriever: dense:"
                    + model
                    + ", variants: [base, int8]}\nrerankers: [dense:"
                    + model
                    + "]\n"
                    + "candidates: {dense_model: "
                    + model
                    + ", sets: [hybrid]}\n",
                "drill.yaml",
                "name: drill\ntasks:\n  - {name: set, language: en, source: {path: set}}\n",
                data.toString(),
                "job");
        Optional<Job> using =
            DrillClients.awaitJob(eval, job.getId(), whenUsing(target), Duration.ofMinutes(5));
        if (using.isEmpty() || DrillClients.finished(using.get())) {
          return new DrillResult(
              title(target),
              load(model, documents),
              "none: the job never reached the moment to kill",
              using.map(j -> j.getState().name()).orElse("no answer"),
              false);
        }
        // The BM25 item is short: kill the index at once; the others at a random point of their
        // item.
        Thread.sleep(
            target == TenbinService.INDEX
                ? new SplittableRandom(seed).nextInt(300)
                : 200 + new SplittableRandom(seed).nextInt(1_500));
        fleet.kill(target);
        String killedDuring = using.get().getRunningCell();
        log.line(
            "killed the "
                + target.label()
                + " service (SIGKILL) during '"
                + killedDuring
                + "', "
                + using.get().getCellsDone()
                + " cells stored");
        Thread.sleep(1_000);
        fleet.restart(target);
        log.line("restarted it on the same port and data");
        Optional<Job> end =
            DrillClients.awaitJob(
                eval, job.getId(), DrillClients::finished, Duration.ofMinutes(15));
        StoredCells cells = StoredCells.of(work.resolve("results").resolve("job"));
        boolean crashed = !fleet.crashed().isEmpty();
        boolean passed =
            end.isPresent()
                && end.get().getState() == JobState.JOB_STATE_SUCCEEDED
                && cells.missing() == 0
                && cells.storedTwice() == 0
                && !crashed;
        String verdict =
            "job "
                + end.map(
                        j -> j.getState().name().replace("JOB_STATE_", "").toLowerCase(Locale.ROOT))
                    .orElse("did not end")
                + "; "
                + cells.planned()
                + " cells planned, "
                + cells.missing()
                + " missing, "
                + cells.storedTwice()
                + " stored twice; "
                + cells.retries()
                + " work-item retries after UNAVAILABLE"
                + (crashed ? "; a service crashed" : "")
                + end.filter(j -> !j.getError().isEmpty())
                    .map(j -> "; error: " + j.getError())
                    .orElse("");
        log.line(verdict);
        return new DrillResult(
            title(target),
            load(model, documents),
            "SIGKILL of the "
                + target.label()
                + " service during '"
                + killedDuring
                + "' ("
                + using.get().getCellsDone()
                + " of "
                + using.get().getCellsTotal()
                + " cells stored), restart 1 s later",
            verdict,
            passed);
      } finally {
        DrillClients.close(eval);
      }
    }
  }

  private static String title(TenbinService target) {
    return "kill -9 of the " + target.label() + " service mid-job, restart";
  }

  private static String load(String model, int documents) {
    return "four services as processes; job: BM25, dense:"
        + model
        + " (base, int8), hybrid candidates, bi-encoder"
        + " reranker; "
        + documents
        + " synthetic documents";
  }

  /** The moment the job uses the target service. */
  private static Predicate<Job> whenUsing(TenbinService target) {
    return job -> {
      if (DrillClients.finished(job)) {
        return true;
      }
      String work = job.getRunningCell();
      return switch (target) {
        // BM25 is index work alone (create, ingest, search): the first work item, about two
        // seconds.
        case INDEX -> work.startsWith("bm25");
        case ENCODER -> work.startsWith("dense:");
        case RERANK -> work.startsWith("rerank");
        case EVAL -> job.getCellsDone() >= 1 && job.getState() == JobState.JOB_STATE_RUNNING;
      };
    };
  }
}
