package dev.tenbin.drill;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tenbin.eval.store.ResultStore;
import dev.tenbin.proto.eval.v1.Job;
import dev.tenbin.proto.eval.v1.JobState;
import dev.tenbin.scoring.beir.SyntheticBeir;
import io.grpc.ManagedChannel;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
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
  /** The services a drill can kill. */
  public enum Target {
    INDEX,
    ENCODER,
    RERANK,
    EVAL
  }

  private KillRestartDrill() {}

  public static DrillResult run(
      Path work, Target target, String model, int documents, long seed, DrillLog log)
      throws Exception {
    Path data = work.resolve("data");
    SyntheticBeir.write(data.resolve("set"), documents, 120, 20, seed);
    Map<Target, Integer> ports = new LinkedHashMap<>();
    for (Target service : Target.values()) {
      ports.put(service, DrillClients.freePort());
    }
    Map<Target, List<String>> args = new LinkedHashMap<>();
    args.put(
        Target.INDEX,
        List.of(
            "serve",
            "index",
            "--port",
            port(ports, Target.INDEX),
            "--data-dir",
            work.resolve("index").toString()));
    args.put(
        Target.ENCODER,
        List.of(
            "serve",
            "encoder",
            "--port",
            port(ports, Target.ENCODER),
            "--cache-dir",
            work.resolve("encoder-cache").toString(),
            "--models-dir",
            work.resolve("models").toString()));
    args.put(
        Target.RERANK,
        List.of(
            "serve",
            "rerank",
            "--port",
            port(ports, Target.RERANK),
            "--encoder-endpoint",
            "127.0.0.1:" + ports.get(Target.ENCODER),
            "--cache-dir",
            work.resolve("rerank-cache").toString(),
            "--models-dir",
            work.resolve("models").toString()));
    args.put(
        Target.EVAL,
        List.of(
            "serve",
            "eval",
            "--port",
            port(ports, Target.EVAL),
            "--index-endpoint",
            "127.0.0.1:" + ports.get(Target.INDEX),
            "--encoder-endpoint",
            "127.0.0.1:" + ports.get(Target.ENCODER),
            "--rerank-endpoint",
            "127.0.0.1:" + ports.get(Target.RERANK),
            "--state-dir",
            work.resolve("state").toString(),
            "--results-root",
            work.resolve("results").toString(),
            "--data-root",
            data.toString(),
            "--cache-dir",
            work.resolve("eval-cache").toString(),
            "--models-dir",
            work.resolve("models").toString()));
    Map<Target, ChildTenbin> running = new LinkedHashMap<>();
    List<ChildTenbin> all = new ArrayList<>();
    String verdict;
    boolean passed;
    try {
      for (Target service : Target.values()) {
        ChildTenbin child =
            ChildTenbin.start(
                work, service.name().toLowerCase(Locale.ROOT) + "-1", args.get(service));
        all.add(child);
        running.put(service, child);
        child.awaitListeningPort(Duration.ofMinutes(2));
      }
      ManagedChannel eval = DrillClients.channel(ports.get(Target.EVAL));
      try {
        Job job =
            DrillClients.submit(
                eval,
                "name: kill-"
                    + target.name().toLowerCase(Locale.ROOT)
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
            target == Target.INDEX
                ? new SplittableRandom(seed).nextInt(300)
                : 200 + new SplittableRandom(seed).nextInt(1_500));
        ChildTenbin victim = running.get(target);
        victim.kill();
        victim.awaitExit(Duration.ofSeconds(30));
        String killedDuring = using.get().getRunningCell();
        log.line(
            "killed the "
                + target.name().toLowerCase(Locale.ROOT)
                + " service (SIGKILL) during '"
                + killedDuring
                + "', "
                + using.get().getCellsDone()
                + " cells stored");
        Thread.sleep(1_000);
        ChildTenbin restarted =
            ChildTenbin.start(
                work, target.name().toLowerCase(Locale.ROOT) + "-2", args.get(target));
        all.add(restarted);
        running.put(target, restarted);
        restarted.awaitListeningPort(Duration.ofMinutes(2));
        log.line("restarted it on the same port and data");
        Optional<Job> end =
            DrillClients.awaitJob(
                eval, job.getId(), DrillClients::finished, Duration.ofMinutes(15));
        Path folder = work.resolve("results").resolve("job");
        Cells cells = cells(folder);
        boolean crashed = all.stream().anyMatch(child -> child != victim && child.crashed());
        passed =
            end.isPresent()
                && end.get().getState() == JobState.JOB_STATE_SUCCEEDED
                && cells.missing() == 0
                && cells.storedTwice() == 0
                && !crashed;
        verdict =
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
                + target.name().toLowerCase(Locale.ROOT)
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
    } finally {
      for (ChildTenbin child : all.reversed()) {
        child.close();
      }
    }
  }

  private static String title(Target target) {
    return "kill -9 of the " + target.name().toLowerCase(Locale.ROOT) + " service mid-job, restart";
  }

  private static String load(String model, int documents) {
    return "four services as processes; job: BM25, dense:"
        + model
        + " (base, int8), hybrid candidates, bi-encoder"
        + " reranker; "
        + documents
        + " synthetic documents";
  }

  private static String port(Map<Target, Integer> ports, Target target) {
    return Integer.toString(ports.get(target));
  }

  /** The moment the job uses the target service. */
  private static Predicate<Job> whenUsing(Target target) {
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

  /**
   * Planned cells of a job folder, how many are not stored, and how many were logged stored twice.
   */
  private record Cells(int planned, int missing, int storedTwice, int retries) {}

  private static Cells cells(Path folder) throws IOException {
    if (!Files.isRegularFile(folder.resolve("job.json"))) {
      return new Cells(0, 0, 0, 0);
    }
    JsonNode plan = ResultStore.JSON.readTree(folder.resolve("job.json").toFile());
    ResultStore store = ResultStore.existing(folder, "job");
    int planned = 0;
    int missing = 0;
    for (JsonNode cell : plan.get("cells")) {
      planned++;
      missing += store.contains(cell.get("fingerprint").asText()) ? 0 : 1;
    }
    Map<String, Integer> stored = new HashMap<>();
    int retries = 0;
    Path events = folder.resolve("events.jsonl");
    if (Files.exists(events)) {
      for (String line : Files.readAllLines(events, StandardCharsets.UTF_8)) {
        if (line.isBlank() || !line.endsWith("}")) {
          continue; // a line torn by a kill
        }
        JsonNode event = ResultStore.JSON.readTree(line);
        retries += event.path("event").asText().equals("work_retry") ? 1 : 0;
        if (event.path("event").asText().equals("cell_stored")) {
          stored.merge(event.get("detail").asText().split(" ")[0], 1, Integer::sum);
        }
      }
    }
    int twice = (int) stored.values().stream().filter(times -> times > 1).count();
    return new Cells(planned, missing, twice, retries);
  }
}
