package dev.tenbin.drill;

import dev.tenbin.client.index.IndexClient;
import dev.tenbin.eval.retrieval.CollectionIngester;
import dev.tenbin.proto.index.v1.CollectionSpec;
import dev.tenbin.proto.index.v1.CreateCollectionRequest;
import dev.tenbin.proto.index.v1.Document;
import dev.tenbin.proto.index.v1.IndexServiceGrpc;
import dev.tenbin.scoring.beir.BeirDataset;
import dev.tenbin.scoring.beir.BeirDatasetReader;
import dev.tenbin.scoring.beir.CorpusDocument;
import dev.tenbin.scoring.beir.SyntheticBeir;
import io.grpc.ManagedChannel;
import io.grpc.StatusRuntimeException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

/**
 * A soak: the four services run as separate processes for a long time at a multiple of their
 * capacity while one of them, chosen at random, is killed with SIGKILL at a fixed interval (with
 * {@code --sigterm}, every other one stopped with SIGTERM instead, as a rolling update stops it,
 * and its graceful exit awaited) and started again on the same port and data; every process is
 * sampled for resident memory, threads, open files and heap throughout.
 *
 * <p>Capacity is measured first, per request kind: the calls per second one client gets answered
 * when it sends {@code EncodeDense} calls (or BM25 {@code Search} calls) back to back to the idle
 * services for {@value #PROBE_SECONDS} s. The load is then {@code loadFactor} times that: {@code
 * ceil(loadFactor)} clients per kind paced to {@code loadFactor} × the probe's rate together, and
 * {@code ceil(loadFactor)} small eval jobs (BM25, dense, a bi-encoder reranker) always queued or
 * running, each into its own output folder.
 *
 * <p>The soak passes when every job submitted succeeds with each planned cell stored exactly once,
 * no process crashes or exits unasked, no client call ends with an error status (refusals,
 * UNAVAILABLE while a service is down and deadlines are counted apart), and every service was
 * sampled. The slopes after warm-up are reported, not judged.
 */
public final class SoakDrill {
  static final int PROBE_SECONDS = 5;
  static final String LOAD_COLLECTION = "soak-load";
  private static final Duration DRAIN_TIMEOUT = Duration.ofMinutes(10);
  private static final long RESTART_PAUSE_MILLIS = 1_000;

  /**
   * A kill and its restart.
   *
   * @param service the service killed
   * @param at when, on the wall clock
   * @param atMillis when, in milliseconds since the load began
   * @param listeningMillis when the restarted process listened, in milliseconds since the load
   *     began
   * @param pid the killed process
   * @param newPid the restarted process
   * @param graceful whether it was a SIGTERM (a graceful stop) rather than a SIGKILL
   */
  record Kill(
      TenbinService service,
      java.time.Instant at,
      long atMillis,
      long listeningMillis,
      long pid,
      long newPid,
      boolean graceful) {
    /** "SIGTERM" or "SIGKILL". */
    String signal() {
      return graceful ? "SIGTERM" : "SIGKILL";
    }
  }

  /**
   * The soak's outcome: its reliability row, and everything measured for {@code --json}.
   *
   * @param row the row RELIABILITY.md tables
   * @param report what the row sums up
   */
  public record Outcome(DrillResult row, SoakReport report) {}

  private SoakDrill() {}

  public static Outcome run(Path work, SoakSettings settings, DrillLog log) throws Exception {
    Path data = work.resolve("data");
    SyntheticBeir.write(data.resolve("set"), settings.documents(), 60, 20, settings.seed());
    BeirDataset set = BeirDatasetReader.read(data.resolve("set"));
    try (ServiceFleet fleet = ServiceFleet.start(work, data, List.of("-Xmx" + settings.heap()))) {
      log.line(
          "services listening: "
              + String.join(
                  ", ",
                  java.util.Arrays.stream(TenbinService.values())
                      .map(
                          s ->
                              s.label()
                                  + " :"
                                  + fleet.port(s)
                                  + " (metrics :"
                                  + fleet.metricsPort(s)
                                  + ")")
                      .toList()));
      ManagedChannel encoder = DrillClients.channel(fleet.port(TenbinService.ENCODER));
      ManagedChannel index = DrillClients.channel(fleet.port(TenbinService.INDEX));
      ManagedChannel eval = DrillClients.channel(fleet.port(TenbinService.EVAL));
      try {
        return soak(work, settings, log, set, fleet, encoder, index, eval);
      } finally {
        DrillClients.close(eval);
        DrillClients.close(index);
        DrillClients.close(encoder);
      }
    }
  }

  private static Outcome soak(
      Path work,
      SoakSettings settings,
      DrillLog log,
      BeirDataset set,
      ServiceFleet fleet,
      ManagedChannel encoder,
      ManagedChannel index,
      ManagedChannel eval)
      throws Exception {
    ingestLoadCollection(index, set.corpus().toList());
    ClientLoad clients =
        new ClientLoad(
            encoder,
            index,
            settings.model(),
            set.corpus().stream().map(CorpusDocument::titleAndText).toList(),
            List.copyOf(set.queries().values()),
            LOAD_COLLECTION);
    Duration probe = Duration.ofSeconds(PROBE_SECONDS);
    double encodeCapacity = clients.probe(ClientLoad.Kind.ENCODE, probe);
    double searchCapacity = clients.probe(ClientLoad.Kind.SEARCH, probe);
    int concurrency = settings.concurrency();
    SoakReport.Capacity capacity =
        new SoakReport.Capacity(encodeCapacity, searchCapacity, concurrency);
    log.line(
        String.format(
            Locale.ROOT,
            "capacity (one client back to back, %d s): encode %.1f calls/s (%d texts each),"
                + " search %.1f calls/s; offering %.1fx: %d clients per kind at %.1f and %.1f"
                + " calls/s, %d jobs queued or running",
            PROBE_SECONDS,
            encodeCapacity,
            ClientLoad.TEXTS_PER_CALL,
            searchCapacity,
            settings.loadFactor(),
            concurrency,
            settings.loadFactor() * encodeCapacity,
            settings.loadFactor() * searchCapacity,
            concurrency));

    long origin = System.nanoTime();
    List<Kill> kills = new ArrayList<>();
    List<String> exitedUnasked = new ArrayList<>();
    JobLoad jobs =
        new JobLoad(
            eval,
            jobSpec(settings.model()),
            "name: soak\ntasks:\n  - {name: set, language: en, source: {path: set}}\n",
            work.resolve("data"),
            concurrency,
            log);
    try (FleetSampler sampler = new FleetSampler(fleet, origin, work.resolve("samples.csv"))) {
      sampler.start(settings.sampleEvery());
      jobs.start();
      clients.start(
          ClientLoad.Kind.ENCODE,
          concurrency,
          settings.loadFactor() * encodeCapacity,
          settings.seed(),
          origin);
      clients.start(
          ClientLoad.Kind.SEARCH,
          concurrency,
          settings.loadFactor() * searchCapacity,
          settings.seed(),
          origin);
      try {
        killAndRestart(settings, log, fleet, origin, kills, exitedUnasked);
      } finally {
        clients.close();
        jobs.stopSubmitting();
      }
      long loadMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - origin);
      log.line(
          String.format(
              Locale.ROOT,
              "load stopped after %.0f s; waiting for the jobs still queued or running",
              loadMillis / 1000.0));
      boolean drained = jobs.awaitAll(DRAIN_TIMEOUT);
      int recovered = jobs.reconcile();
      if (recovered > 0) {
        log.line(recovered + " job(s) admitted while the submit's answer was lost; waiting");
        drained = jobs.awaitAll(DRAIN_TIMEOUT);
      }
      if (!drained) {
        log.line("some jobs did not finish within " + DRAIN_TIMEOUT.toMinutes() + " min");
      }
      sampler.sampleAll();
      List<String> collectionsLeft = jobCollectionsLeft(index, log);
      SoakReport report =
          SoakReport.of(
              settings,
              capacity,
              loadMillis,
              work.resolve("results"),
              jobs,
              clients.calls(),
              kills,
              exitedUnasked,
              fleet.crashed().stream().map(ChildTenbin::name).toList(),
              collectionsLeft,
              sampler);
      report.write(work);
      report.logTo(log);
      return new Outcome(report.row(), report);
    }
  }

  /**
   * Until the end of the loaded period: the kills at their times, each followed by a restart, and a
   * restart of any service whose process exited unasked.
   */
  private static void killAndRestart(
      SoakSettings settings,
      DrillLog log,
      ServiceFleet fleet,
      long origin,
      List<Kill> kills,
      List<String> exitedUnasked)
      throws InterruptedException {
    SplittableRandom random = new SplittableRandom(settings.seed());
    long end = origin + settings.duration().toNanos();
    long nextKill = origin + settings.killEvery().toNanos();
    while (System.nanoTime() < end) {
      for (TenbinService service : fleet.exitedUnasked()) {
        ChildTenbin exited = fleet.current(service);
        String note =
            exited.name() + " exited unasked (exit code " + exited.awaitExit(Duration.ZERO) + ")";
        exitedUnasked.add(note);
        log.line(note + "; starting it again");
        fleet.restart(service);
      }
      if (System.nanoTime() >= nextKill) {
        TenbinService victim =
            TenbinService.values()[random.nextInt(TenbinService.values().length)];
        long at = System.nanoTime();
        java.time.Instant wallClock = java.time.Instant.now();
        boolean graceful = settings.sigterm() && kills.size() % 2 == 1;
        ChildTenbin killed = graceful ? fleet.terminate(victim) : fleet.kill(victim);
        Thread.sleep(RESTART_PAUSE_MILLIS);
        ChildTenbin restarted = fleet.restart(victim);
        Kill kill =
            new Kill(
                victim,
                wallClock,
                TimeUnit.NANOSECONDS.toMillis(at - origin),
                TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - origin),
                killed.pid(),
                restarted.pid(),
                graceful);
        kills.add(kill);
        log.line(
            String.format(
                Locale.ROOT,
                "kill %d at %.0f s: %s of the %s service (pid %d); restarted as %s, listening"
                    + " %.1f s after the kill",
                kills.size(),
                kill.atMillis() / 1000.0,
                kill.signal(),
                victim.label(),
                kill.pid(),
                restarted.name(),
                (kill.listeningMillis() - kill.atMillis()) / 1000.0));
        nextKill += settings.killEvery().toNanos();
        continue;
      }
      long sleepNanos = Math.min(Math.min(nextKill, end) - System.nanoTime(), 1_000_000_000L);
      if (sleepNanos > 0) {
        TimeUnit.NANOSECONDS.sleep(sleepNanos);
      }
    }
  }

  /**
   * The collections on the index service other than the load's own: the temporary collections of
   * jobs, which a job drops when its work is done; empty when the index does not answer.
   */
  private static List<String> jobCollectionsLeft(ManagedChannel index, DrillLog log) {
    try {
      return IndexClient.of(index).withDeadline(Duration.ofSeconds(30)).listCollections().stream()
          .map(collection -> collection.getSpec().getName())
          .filter(name -> !name.equals(LOAD_COLLECTION))
          .sorted()
          .toList();
    } catch (StatusRuntimeException e) {
      log.line("could not list the index service's collections: " + e.getStatus());
      return List.of();
    }
  }

  /** A BM25 collection of the corpus for the search clients, beside the jobs' own collections. */
  private static void ingestLoadCollection(ManagedChannel index, List<CorpusDocument> corpus) {
    IndexServiceGrpc.newBlockingStub(index)
        .withDeadlineAfter(60, TimeUnit.SECONDS)
        .createCollection(
            CreateCollectionRequest.newBuilder()
                .setSpec(CollectionSpec.newBuilder().setName(LOAD_COLLECTION).setLanguage("en"))
                .build());
    List<Document> documents =
        corpus.stream()
            .map(
                document ->
                    Document.newBuilder()
                        .setId(document.id())
                        .setTitle(document.title())
                        .setText(document.text())
                        .build())
            .toList();
    new CollectionIngester(IndexClient.of(index), 500, 120).ingest(LOAD_COLLECTION, documents);
  }

  /**
   * The spec of every soak job: BM25 and the dense model, hybrid candidates of the two, each
   * reranked by the dense model as a bi-encoder.
   */
  static String jobSpec(String model) {
    return "name: soak\ntask_sets: [soak.yaml]\nretrievers: [bm25, dense:"
        + model
        + "]\nrerankers: [dense:"
        + model
        + "]\ncandidates: {dense_model: "
        + model
        + ", sets: [hybrid]}\n";
  }
}
