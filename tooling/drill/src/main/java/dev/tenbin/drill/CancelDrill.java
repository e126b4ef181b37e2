package dev.tenbin.drill;

import dev.tenbin.client.eval.EvalClient;
import dev.tenbin.proto.eval.v1.Job;
import dev.tenbin.scoring.beir.SyntheticBeir;
import dev.tenbin.testing.rpc.LoopbackPorts;
import io.grpc.ManagedChannel;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.TreeMap;

/**
 * {@code tenbin job cancel} while a dense model encodes: one {@code tenbin serve eval} (its encoder
 * and index embedded) runs job after job, each over a fresh synthetic collection (so nothing comes
 * from the embedding cache), and each is cancelled at a random moment of its encode. The service
 * must stay up through every cancel and stop cleanly on SIGTERM at the end.
 */
public final class CancelDrill {
  private CancelDrill() {}

  public static DrillResult run(
      Path work, String model, int repeats, int documents, long seed, DrillLog log)
      throws InterruptedException, java.io.IOException {
    Path data = java.nio.file.Files.createDirectories(work.resolve("data"));
    SplittableRandom random = new SplittableRandom(seed);
    int port = LoopbackPorts.reserve();
    Map<String, Integer> ends = new TreeMap<>();
    int crashes = 0;
    int cancelledMidEncode = 0;
    String exit;
    try (ChildTenbin service =
        ChildTenbin.start(
            work,
            "eval-service",
            List.of(
                "serve",
                "eval",
                "--port",
                Integer.toString(port),
                "--state-dir",
                work.resolve("state").toString(),
                "--results-root",
                work.resolve("results").toString(),
                "--data-root",
                data.toString(),
                "--cache-dir",
                work.resolve("cache").toString(),
                "--models-dir",
                work.resolve("models").toString()))) {
      service.awaitListeningPort(Duration.ofMinutes(2));
      ManagedChannel eval = DrillClients.channel(port);
      try {
        for (int run = 1; run <= repeats; run++) {
          String task = "set" + run;
          SyntheticBeir.write(data.resolve(task), documents, 120, 10, seed + run);
          Job job =
              DrillClients.submit(
                  eval,
                  "name: cancel-"
                      + run
                      + "\ntask_sets: [drill.yaml]\nretrievers:\n  - {retriever: dense:"
                      + model
                      + ", variants: [base]}\n",
                  "drill.yaml",
                  "name: drill\ntasks:\n  - {name: "
                      + task
                      + ", language: en, source: {path: "
                      + task
                      + "}}\n",
                  data.toString(),
                  "cancel-" + run);
          Optional<Job> encoding =
              DrillClients.awaitJob(
                  eval,
                  job.getId(),
                  j -> j.getRunningCell().startsWith("dense:") || DrillClients.finished(j),
                  Duration.ofMinutes(3));
          if (encoding.isPresent() && !DrillClients.finished(encoding.get())) {
            Thread.sleep(200 + random.nextInt(2_000));
            EvalClient.of(eval).withDeadline(Duration.ofSeconds(30)).cancelJob(job.getId());
            cancelledMidEncode++;
          }
          Optional<Job> end =
              DrillClients.awaitJob(
                  eval, job.getId(), DrillClients::finished, Duration.ofMinutes(3));
          String state =
              end.map(j -> j.getState().name().replace("JOB_STATE_", "").toLowerCase(Locale.ROOT))
                  .orElse("no end");
          ends.merge(state, 1, Integer::sum);
          boolean alive = service.isAlive() && DrillClients.serving(eval);
          log.line("run " + run + ": " + state + (alive ? ", service serving" : ", SERVICE DOWN"));
          if (!alive) {
            crashes += service.crashed() ? 1 : 0;
            break;
          }
        }
      } finally {
        DrillClients.close(eval);
      }
      service.terminate();
      int code = service.awaitExit(Duration.ofSeconds(90));
      crashes += service.crashed() ? 1 : 0;
      exit = code == -1 ? "hung after SIGTERM" : "exit " + code + " on SIGTERM";
    }
    boolean cancelledAll =
        ends.getOrDefault("cancelled", 0) + ends.getOrDefault("succeeded", 0) == repeats;
    return new DrillResult(
        "cancel during encode (eval service)",
        "`tenbin serve eval`, embedded encoder, dense:"
            + model
            + " over "
            + documents
            + " synthetic documents per job",
        repeats + " jobs, each cancelled 0.2-2.2 s after its dense work item started",
        cancelledMidEncode
            + " cancelled while encoding; job ends "
            + ends
            + "; "
            + crashes
            + " crashes; service "
            + exit,
        crashes == 0 && cancelledAll && exit.equals("exit 143 on SIGTERM"));
  }
}
