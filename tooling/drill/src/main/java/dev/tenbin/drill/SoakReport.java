package dev.tenbin.drill;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tenbin.proto.eval.v1.JobState;
import io.grpc.Status;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.ToDoubleFunction;

/**
 * What a soak measured, summed up: the jobs and their cells, the client calls by status with their
 * latency percentiles, the p99 latency in the window before and after each kill, and per service
 * the sampled resident memory, heap after GC, heap in use, open files and threads at the end of the
 * warm-up and at the end, with the slope after warm-up. It gives the reliability row, the {@code
 * --json} object and the files written into the work folder.
 */
public final class SoakReport {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final double MIB = 1024.0 * 1024.0;

  /** Client statuses that are the service saying no or being away, not an error of the service. */
  private static final Set<Status.Code> NOT_ERRORS =
      Set.of(
          Status.Code.OK,
          Status.Code.RESOURCE_EXHAUSTED,
          Status.Code.UNAVAILABLE,
          Status.Code.DEADLINE_EXCEEDED);

  /**
   * The measured capacity and the clients per kind.
   *
   * @param encodePerSecond EncodeDense calls per second one client got answered
   * @param searchPerSecond Search calls per second one client got answered
   * @param concurrency clients per kind, and jobs kept queued or running
   */
  record Capacity(double encodePerSecond, double searchPerSecond, int concurrency) {}

  /** The jobs' outcome. */
  record Jobs(
      int submitted,
      int succeeded,
      int failed,
      int cancelled,
      int unfinished,
      StoredCells cells,
      int cellsLost,
      Map<String, Integer> submitRefusals,
      List<String> errors) {}

  /** What was sampled of one service: its processes, its samples and each measure's trend. */
  record ServiceTrends(int generations, int samples, Map<String, Trend> measures) {}

  private final SoakSettings settings;
  private final Capacity capacity;
  private final long loadMillis;
  private final Jobs jobs;
  private final List<ClientLoad.Call> calls;
  private final List<SoakDrill.Kill> kills;
  private final List<String> exitedUnasked;
  private final List<String> crashed;
  private final List<String> collectionsLeft;
  private final Map<TenbinService, ServiceTrends> services;
  private final List<JobLoad.TrackedJob> jobList;
  private final Map<String, StoredCells> cellsByFolder;

  private SoakReport(
      SoakSettings settings,
      Capacity capacity,
      long loadMillis,
      Jobs jobs,
      List<JobLoad.TrackedJob> jobList,
      Map<String, StoredCells> cellsByFolder,
      List<ClientLoad.Call> calls,
      List<SoakDrill.Kill> kills,
      List<String> exitedUnasked,
      List<String> crashed,
      List<String> collectionsLeft,
      Map<TenbinService, ServiceTrends> services) {
    this.settings = settings;
    this.capacity = capacity;
    this.loadMillis = loadMillis;
    this.jobs = jobs;
    this.jobList = jobList;
    this.cellsByFolder = cellsByFolder;
    this.calls = calls;
    this.kills = kills;
    this.exitedUnasked = exitedUnasked;
    this.crashed = crashed;
    this.collectionsLeft = collectionsLeft;
    this.services = services;
  }

  static SoakReport of(
      SoakSettings settings,
      Capacity capacity,
      long loadMillis,
      Path resultsRoot,
      JobLoad jobLoad,
      List<ClientLoad.Call> calls,
      List<SoakDrill.Kill> kills,
      List<String> exitedUnasked,
      List<String> crashed,
      List<String> collectionsLeft,
      FleetSampler sampler)
      throws IOException {
    List<JobLoad.TrackedJob> jobList = jobLoad.jobs();
    Map<String, StoredCells> cellsByFolder = new LinkedHashMap<>();
    int succeeded = 0;
    int failed = 0;
    int cancelled = 0;
    int unfinished = 0;
    int lost = 0;
    StoredCells all = StoredCells.NONE;
    List<String> errors = new ArrayList<>();
    for (JobLoad.TrackedJob job : jobList) {
      StoredCells cells = StoredCells.of(resultsRoot.resolve(job.folder()));
      cellsByFolder.put(job.folder(), cells);
      all = all.plus(cells);
      JobState state = job.latest().getState();
      switch (state) {
        case JOB_STATE_SUCCEEDED -> {
          succeeded++;
          lost += cells.missing();
        }
        case JOB_STATE_FAILED -> failed++;
        case JOB_STATE_CANCELLED -> cancelled++;
        default -> unfinished++;
      }
      if (state == JobState.JOB_STATE_FAILED && errors.size() < 5) {
        errors.add(job.folder() + ": " + job.latest().getError());
      }
    }
    Jobs jobs =
        new Jobs(
            jobList.size(),
            succeeded,
            failed,
            cancelled,
            unfinished,
            all,
            lost,
            jobLoad.submitRefusals(),
            errors);
    Map<TenbinService, ServiceTrends> services = new EnumMap<>(TenbinService.class);
    long warmUp = settings.warmUp().toMillis();
    for (TenbinService service : TenbinService.values()) {
      List<ProcessSample> samples = sampler.samples(service);
      Map<Integer, Long> starts = sampler.generationStarts(service);
      Map<String, Trend> measures = new LinkedHashMap<>();
      measures.put("rss_mib", trend(samples, starts, warmUp, s -> mib(s.rssBytes())));
      Set<ProcessSample> newHeapAfterGc = newHeapAfterGc(samples);
      measures.put(
          "heap_after_gc_mib",
          trend(
              samples,
              starts,
              warmUp,
              s -> newHeapAfterGc.contains(s) ? mib(s.heapAfterGcBytes()) : Double.NaN));
      measures.put("heap_used_mib", trend(samples, starts, warmUp, s -> mib(s.heapUsedBytes())));
      measures.put("open_files", trend(samples, starts, warmUp, s -> count(s.openFiles())));
      measures.put("threads", trend(samples, starts, warmUp, s -> count(s.threads())));
      int generations = samples.stream().mapToInt(ProcessSample::generation).max().orElse(0);
      services.put(service, new ServiceTrends(generations, samples.size(), measures));
    }
    return new SoakReport(
        settings,
        capacity,
        loadMillis,
        jobs,
        jobList,
        cellsByFolder,
        calls,
        kills,
        exitedUnasked,
        crashed,
        collectionsLeft,
        services);
  }

  /**
   * The samples whose heap after GC is new: different from the previous sample of the same process.
   * The metric changes only when a major collection (or one that shrinks the old generation) ends,
   * so a repeated value is the same collection seen again and must not flatten the slope.
   */
  private static Set<ProcessSample> newHeapAfterGc(List<ProcessSample> samples) {
    Set<ProcessSample> fresh = new java.util.HashSet<>();
    Map<Integer, Long> previous = new java.util.HashMap<>();
    for (ProcessSample sample : samples) {
      Long before = previous.put(sample.generation(), sample.heapAfterGcBytes());
      if (sample.heapAfterGcBytes() >= 0
          && (before == null || before != sample.heapAfterGcBytes())) {
        fresh.add(sample);
      }
    }
    return fresh;
  }

  private static Trend trend(
      List<ProcessSample> samples,
      Map<Integer, Long> starts,
      long warmUp,
      ToDoubleFunction<ProcessSample> measure) {
    return Trend.of(samples, starts, warmUp, measure);
  }

  private static double mib(long bytes) {
    return bytes < 0 ? Double.NaN : bytes / MIB;
  }

  private static double count(int value) {
    return value < 0 ? Double.NaN : value;
  }

  /** Client calls that ended with a status other than OK, a refusal, UNAVAILABLE or a deadline. */
  int clientErrors() {
    return (int) calls.stream().filter(call -> !NOT_ERRORS.contains(call.code())).count();
  }

  /** Whether every service was sampled at least twice. */
  boolean everyServiceSampled() {
    return services.values().stream().allMatch(trends -> trends.samples() >= 2);
  }

  boolean passed() {
    return jobs.submitted() > 0
        && jobs.succeeded() == jobs.submitted()
        && jobs.cellsLost() == 0
        && jobs.cells().storedTwice() == 0
        && kills.size() >= Math.min(1, settings.plannedKills())
        && exitedUnasked.isEmpty()
        && crashed.isEmpty()
        && clientErrors() == 0
        && everyServiceSampled();
  }

  Jobs jobs() {
    return jobs;
  }

  List<SoakDrill.Kill> kills() {
    return kills;
  }

  Map<TenbinService, ServiceTrends> services() {
    return services;
  }

  /** The reliability row. */
  DrillResult row() {
    String kind =
        String.format(
            Locale.ROOT,
            "soak: %s at %sx capacity, kill -9 every %s%s",
            DurationConverter.format(settings.duration()),
            number(settings.loadFactor()),
            DurationConverter.format(settings.killEvery()),
            settings.sigterm() ? " (every other one a SIGTERM)" : "");
    String load =
        String.format(
            Locale.ROOT,
            "four services as processes (-Xmx%s each), dense:%s, %d synthetic documents; %d jobs"
                + " (BM25, dense, bi-encoder rerank) always queued or running; %d encode clients"
                + " (%d texts) and %d BM25 search clients at %sx the one-client rate (%.1f and"
                + " %.1f calls/s)",
            settings.heap(),
            settings.model(),
            settings.documents(),
            capacity.concurrency(),
            capacity.concurrency(),
            ClientLoad.TEXTS_PER_CALL,
            capacity.concurrency(),
            number(settings.loadFactor()),
            capacity.encodePerSecond(),
            capacity.searchPerSecond());
    String faults =
        String.format(
            Locale.ROOT,
            "%d × SIGKILL of a random service (seed %d: %s), restart 1 s later on the same port"
                + " and data",
            kills.size(),
            settings.seed(),
            killCounts());
    return new DrillResult(kind, load, faults, result(), passed());
  }

  private String result() {
    StringBuilder text = new StringBuilder();
    text.append(
        String.format(
            Locale.ROOT,
            "%d jobs submitted, %d succeeded, %d failed%s; %d cells planned, %d lost, %d computed"
                + " twice (%d work-item retries); restarts listening %s after the kill",
            jobs.submitted(),
            jobs.succeeded(),
            jobs.failed(),
            jobs.unfinished() + jobs.cancelled() > 0
                ? ", " + (jobs.unfinished() + jobs.cancelled()) + " cancelled or unfinished"
                : "",
            jobs.cells().planned(),
            jobs.cellsLost(),
            jobs.cells().storedTwice(),
            jobs.cells().retries(),
            restartRange()));
    for (ClientLoad.Kind kind : ClientLoad.Kind.values()) {
      text.append(
          String.format(
              Locale.ROOT,
              "; %s calls %s, p99 %d ms",
              kind.label(),
              codes(kind),
              Percentiles.of(okMillis(kind, Long.MIN_VALUE, Long.MAX_VALUE), 99)));
    }
    text.append("; slopes after warm-up per hour (RSS MiB / heap after GC MiB / open files /")
        .append(" threads):");
    for (Map.Entry<TenbinService, ServiceTrends> entry : services.entrySet()) {
      Map<String, Trend> m = entry.getValue().measures();
      text.append(' ')
          .append(entry.getKey().label())
          .append(' ')
          .append(signed(m.get("rss_mib").perHour()))
          .append(" / ")
          .append(signed(m.get("heap_after_gc_mib").perHour()))
          .append(" / ")
          .append(signed(m.get("open_files").perHour()))
          .append(" / ")
          .append(signed(m.get("threads").perHour()))
          .append(',');
    }
    text.setLength(text.length() - 1);
    if (!jobs.submitRefusals().isEmpty()) {
      text.append("; submits without a job ").append(jobs.submitRefusals());
    }
    if (!collectionsLeft.isEmpty()) {
      text.append("; ")
          .append(collectionsLeft.size())
          .append(" job collection(s) left on the index after every job ended");
    }
    if (!exitedUnasked.isEmpty()) {
      text.append("; exited unasked: ").append(String.join(", ", exitedUnasked));
    }
    if (!crashed.isEmpty()) {
      text.append("; crashed: ").append(String.join(", ", crashed));
    }
    if (clientErrors() > 0) {
      text.append("; ").append(clientErrors()).append(" client calls ended with an error status");
    }
    if (!everyServiceSampled()) {
      text.append("; a service was not sampled");
    }
    if (!jobs.errors().isEmpty()) {
      text.append("; first job error: ").append(jobs.errors().get(0));
    }
    return text.toString();
  }

  private String restartRange() {
    if (kills.isEmpty()) {
      return "(no kills)";
    }
    double fastest = Double.MAX_VALUE;
    double slowest = 0;
    for (SoakDrill.Kill kill : kills) {
      double seconds = (kill.listeningMillis() - kill.atMillis()) / 1000.0;
      fastest = Math.min(fastest, seconds);
      slowest = Math.max(slowest, seconds);
    }
    return String.format(Locale.ROOT, "%.1f–%.1f s", fastest, slowest);
  }

  private Map<String, Integer> killCounts() {
    Map<String, Integer> counts = new TreeMap<>();
    kills.forEach(kill -> counts.merge(kill.service().label(), 1, Integer::sum));
    return counts;
  }

  private Map<String, Integer> codes(ClientLoad.Kind kind) {
    Map<String, Integer> codes = new TreeMap<>();
    calls.stream()
        .filter(call -> call.kind() == kind)
        .forEach(call -> codes.merge(call.code().name(), 1, Integer::sum));
    return codes;
  }

  /** Latencies of the OK calls of {@code kind} sent in [from, to) ms. */
  private List<Long> okMillis(ClientLoad.Kind kind, long from, long to) {
    return calls.stream()
        .filter(
            call ->
                call.kind() == kind
                    && call.code() == Status.Code.OK
                    && call.atMillis() >= from
                    && call.atMillis() < to)
        .map(ClientLoad.Call::millis)
        .toList();
  }

  private long notOk(ClientLoad.Kind kind, long from, long to) {
    return calls.stream()
        .filter(
            call ->
                call.kind() == kind
                    && call.code() != Status.Code.OK
                    && call.atMillis() >= from
                    && call.atMillis() < to)
        .count();
  }

  /** The window before and after a kill whose p99 latencies are compared: half the interval. */
  private long windowMillis() {
    return settings.killEvery().toMillis() / 2;
  }

  private static String number(double value) {
    return value == Math.rint(value)
        ? Long.toString((long) value)
        : String.format(Locale.ROOT, "%.2f", value);
  }

  private static String signed(double value) {
    return Double.isNaN(value) ? "n/a" : String.format(Locale.ROOT, "%+.1f", value);
  }

  /** The {@code --json} details: settings, capacity, jobs, client calls, kills and services. */
  ObjectNode json() {
    ObjectNode root = JSON.createObjectNode();
    ObjectNode run = root.putObject("settings");
    run.put("duration_s", settings.duration().toSeconds());
    run.put("kill_every_s", settings.killEvery().toSeconds());
    run.put("sample_every_s", settings.sampleEvery().toMillis() / 1000.0);
    run.put("warm_up_s", settings.warmUp().toMillis() / 1000.0);
    run.put("load_factor", settings.loadFactor());
    run.put("model", settings.model());
    run.put("documents", settings.documents());
    run.put("heap", settings.heap());
    run.put("seed", settings.seed());
    run.put("loaded_s", loadMillis / 1000.0);
    ObjectNode load = root.putObject("capacity");
    load.put("probe_s", SoakDrill.PROBE_SECONDS);
    load.put("encode_calls_per_s", round(capacity.encodePerSecond()));
    load.put("search_calls_per_s", round(capacity.searchPerSecond()));
    load.put("clients_per_kind", capacity.concurrency());
    load.put("jobs_in_flight", capacity.concurrency());
    ObjectNode jobNode = root.putObject("jobs");
    jobNode.put("submitted", jobs.submitted());
    jobNode.put("succeeded", jobs.succeeded());
    jobNode.put("failed", jobs.failed());
    jobNode.put("cancelled", jobs.cancelled());
    jobNode.put("unfinished", jobs.unfinished());
    jobNode.put("cells_planned", jobs.cells().planned());
    jobNode.put("cells_lost", jobs.cellsLost());
    jobNode.put("cells_computed_twice", jobs.cells().storedTwice());
    jobNode.put("work_item_retries", jobs.cells().retries());
    jobNode.set("submits_without_a_job", JSON.valueToTree(jobs.submitRefusals()));
    jobNode.set("errors", JSON.valueToTree(jobs.errors()));
    ObjectNode clientNode = root.putObject("client_calls");
    for (ClientLoad.Kind kind : ClientLoad.Kind.values()) {
      ObjectNode node = clientNode.putObject(kind.label());
      node.set("codes", JSON.valueToTree(codes(kind)));
      List<Long> ok = okMillis(kind, Long.MIN_VALUE, Long.MAX_VALUE);
      node.put("p50_ms", Percentiles.of(ok, 50));
      node.put("p99_ms", Percentiles.of(ok, 99));
    }
    clientNode.put("errors", clientErrors());
    ArrayNode killNodes = root.putArray("kills");
    kills.forEach(kill -> killNodes.add(killJson(kill)));
    root.put("kill_window_s", windowMillis() / 1000.0);
    ObjectNode serviceNodes = root.putObject("services");
    for (Map.Entry<TenbinService, ServiceTrends> entry : services.entrySet()) {
      ObjectNode node = serviceNodes.putObject(entry.getKey().label());
      node.put("processes", entry.getValue().generations());
      node.put("samples", entry.getValue().samples());
      for (Map.Entry<String, Trend> measure : entry.getValue().measures().entrySet()) {
        ObjectNode trend = node.putObject(measure.getKey());
        putNumber(trend, "at_warm_up_end", measure.getValue().atWarmUpEnd());
        putNumber(trend, "at_end", measure.getValue().atEnd());
        putNumber(trend, "slope_per_hour", measure.getValue().perHour());
        trend.put("samples_after_warm_up", measure.getValue().samples());
      }
    }
    root.set("exited_unasked", JSON.valueToTree(exitedUnasked));
    root.set("crashed", JSON.valueToTree(crashed));
    root.set("index_collections_left", JSON.valueToTree(collectionsLeft));
    ObjectNode files = root.putObject("files");
    files.put("samples", "samples.csv");
    files.put("client_calls", "client-calls.csv");
    files.put("kills", "kills.jsonl");
    files.put("jobs", "jobs.csv");
    files.put("summary", "soak-summary.json");
    return root;
  }

  private ObjectNode killJson(SoakDrill.Kill kill) {
    ObjectNode node = JSON.createObjectNode();
    node.put("service", kill.service().label());
    node.put("signal", kill.signal());
    node.put("at", kill.at().toString());
    node.put("at_s", kill.atMillis() / 1000.0);
    node.put("listening_after_s", (kill.listeningMillis() - kill.atMillis()) / 1000.0);
    node.put("pid", kill.pid());
    node.put("new_pid", kill.newPid());
    long window = windowMillis();
    for (ClientLoad.Kind kind : ClientLoad.Kind.values()) {
      node.put(
          kind.label() + "_p99_before_ms",
          Percentiles.of(okMillis(kind, kill.atMillis() - window, kill.atMillis()), 99));
      node.put(
          kind.label() + "_p99_after_ms",
          Percentiles.of(okMillis(kind, kill.atMillis(), kill.atMillis() + window), 99));
      node.put(
          kind.label() + "_not_ok_after", notOk(kind, kill.atMillis(), kill.atMillis() + window));
    }
    return node;
  }

  private static void putNumber(ObjectNode node, String field, double value) {
    if (Double.isNaN(value)) {
      node.putNull(field);
    } else {
      node.put(field, round(value));
    }
  }

  private static double round(double value) {
    return Math.round(value * 10) / 10.0;
  }

  /**
   * Writes {@code client-calls.csv}, {@code kills.jsonl}, {@code jobs.csv} and {@code
   * soak-summary.json} into {@code work} ({@code samples.csv} is written as the samples are taken).
   */
  void write(Path work) throws IOException {
    List<String> lines = new ArrayList<>();
    lines.add(ClientLoad.Call.CSV_HEADER);
    calls.stream()
        .sorted(java.util.Comparator.comparingLong(ClientLoad.Call::atMillis))
        .forEach(call -> lines.add(call.csvLine()));
    Files.write(work.resolve("client-calls.csv"), lines, StandardCharsets.UTF_8);
    List<String> killLines = new ArrayList<>();
    kills.forEach(kill -> killLines.add(killJson(kill).toString()));
    Files.write(work.resolve("kills.jsonl"), killLines, StandardCharsets.UTF_8);
    List<String> jobLines = new ArrayList<>();
    jobLines.add(
        "folder,job_id,state,submitted,started,ended,cells_planned,cells_missing,cells_stored_twice,"
            + "work_retries,error");
    for (JobLoad.TrackedJob job : jobList) {
      StoredCells cells = cellsByFolder.get(job.folder());
      jobLines.add(
          String.join(
              ",",
              job.folder(),
              job.id(),
              job.latest().getState().name(),
              instant(job.latest().getSubmitTime()),
              instant(job.latest().getStartTime()),
              instant(job.latest().getEndTime()),
              Integer.toString(cells.planned()),
              Integer.toString(cells.missing()),
              Integer.toString(cells.storedTwice()),
              Integer.toString(cells.retries()),
              csvText(job.latest().getError())));
    }
    Files.write(work.resolve("jobs.csv"), jobLines, StandardCharsets.UTF_8);
    ObjectNode summary = json();
    DrillResult row = row();
    summary.put("test", row.test());
    summary.put("result", row.result());
    summary.put("passed", row.passed());
    Files.writeString(
        work.resolve("soak-summary.json"),
        JSON.writerWithDefaultPrettyPrinter().writeValueAsString(summary),
        StandardCharsets.UTF_8);
  }

  private static String instant(com.google.protobuf.Timestamp time) {
    return time.getSeconds() == 0 && time.getNanos() == 0
        ? ""
        : java.time.Instant.ofEpochSecond(time.getSeconds(), time.getNanos()).toString();
  }

  private static String csvText(String text) {
    return text.isEmpty() ? "" : "\"" + text.replace("\"", "\"\"").replace('\n', ' ') + "\"";
  }

  /** One line per kill and per service, for the progress log. */
  void logTo(DrillLog log) {
    for (SoakDrill.Kill kill : kills) {
      ObjectNode node = killJson(kill);
      log.line(
          String.format(
              Locale.ROOT,
              "kill at %.0f s (%s): encode p99 %d -> %d ms, search p99 %d -> %d ms in the %.0f s"
                  + " before and after; calls not OK after: encode %d, search %d",
              kill.atMillis() / 1000.0,
              kill.service().label(),
              node.get("encode_p99_before_ms").asLong(),
              node.get("encode_p99_after_ms").asLong(),
              node.get("search_p99_before_ms").asLong(),
              node.get("search_p99_after_ms").asLong(),
              windowMillis() / 1000.0,
              node.get("encode_not_ok_after").asLong(),
              node.get("search_not_ok_after").asLong()));
    }
    for (Map.Entry<TenbinService, ServiceTrends> entry : services.entrySet()) {
      StringBuilder line =
          new StringBuilder(
              String.format(
                  Locale.ROOT,
                  "%s (%d processes, %d samples), warm-up end -> end (slope per hour):",
                  entry.getKey().label(),
                  entry.getValue().generations(),
                  entry.getValue().samples()));
      for (Map.Entry<String, Trend> measure : entry.getValue().measures().entrySet()) {
        Trend trend = measure.getValue();
        line.append(
            String.format(
                Locale.ROOT,
                " %s %s -> %s (%s);",
                measure.getKey(),
                plain(trend.atWarmUpEnd()),
                plain(trend.atEnd()),
                signed(trend.perHour())));
      }
      line.setLength(line.length() - 1);
      log.line(line.toString());
    }
    log.line(row().result());
  }

  private static String plain(double value) {
    return Double.isNaN(value) ? "n/a" : String.format(Locale.ROOT, "%.1f", value);
  }
}
