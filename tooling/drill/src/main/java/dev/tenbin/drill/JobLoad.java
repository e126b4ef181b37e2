package dev.tenbin.drill;

import dev.tenbin.client.eval.EvalClient;
import dev.tenbin.proto.eval.v1.Job;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The job load: small eval jobs submitted one after another so that {@code inFlight} of them are
 * queued or running at any time (the eval service runs one at a time), each into an output folder
 * of its own ({@code soak-0001}, ...), so every job computes its cells. A submit that gets no job
 * is counted by its status: when the eval service is away or busy (UNAVAILABLE, RESOURCE_EXHAUSTED,
 * a deadline) the next submit goes to the next folder name; any other refusal ends the submitting,
 * as every job would be refused the same way. At the end {@link #reconcile()} picks up jobs that
 * were admitted but whose answer was lost.
 */
final class JobLoad implements AutoCloseable {
  private static final long POLL_MILLIS = 500;

  /** Submit failures of a service that is away or busy for a while; the next submit may pass. */
  private static final Set<Status.Code> PASSING =
      Set.of(
          Status.Code.UNAVAILABLE,
          Status.Code.RESOURCE_EXHAUSTED,
          Status.Code.DEADLINE_EXCEEDED,
          Status.Code.CANCELLED);

  /**
   * A submitted job and its latest known state.
   *
   * @param folder its output folder name
   * @param id its id
   * @param latest the latest answer of GetJob (or SubmitJob)
   */
  record TrackedJob(String folder, String id, Job latest) {}

  private final ManagedChannel eval;
  private final String specYaml;
  private final String taskSetYaml;
  private final Path dataRoot;
  private final int inFlight;
  private final DrillLog log;
  private final Map<String, TrackedJob> jobs = new ConcurrentHashMap<>();
  private final Set<String> folders = ConcurrentHashMap.newKeySet();
  private final Map<String, Integer> submitRefusals = new ConcurrentHashMap<>();
  private volatile boolean submitting = true;
  private Thread loop;

  /**
   * @param specYaml the job spec; every job gets the same
   * @param taskSetYaml the task set {@code soak.yaml}, with paths under {@code dataRoot}
   */
  JobLoad(
      ManagedChannel eval,
      String specYaml,
      String taskSetYaml,
      Path dataRoot,
      int inFlight,
      DrillLog log) {
    this.eval = eval;
    this.specYaml = specYaml;
    this.taskSetYaml = taskSetYaml;
    this.dataRoot = dataRoot;
    this.inFlight = inFlight;
    this.log = log;
  }

  void start() {
    loop = Thread.ofPlatform().name("soak-jobs").daemon().start(this::run);
  }

  private void run() {
    while (submitting) {
      refresh();
      long unfinished = jobs.values().stream().filter(job -> !finished(job)).count();
      for (long i = unfinished; i < inFlight && submitting; i++) {
        submit();
      }
      try {
        Thread.sleep(POLL_MILLIS);
      } catch (InterruptedException e) {
        return;
      }
    }
  }

  private void submit() {
    String folder = String.format(java.util.Locale.ROOT, "soak-%04d", folders.size() + 1);
    folders.add(folder);
    try {
      Job job =
          DrillClients.submit(
              eval, specYaml, "soak.yaml", taskSetYaml, dataRoot.toString(), folder);
      jobs.put(job.getId(), new TrackedJob(folder, job.getId(), job));
    } catch (StatusRuntimeException e) {
      Status.Code code = e.getStatus().getCode();
      submitRefusals.merge(code.name(), 1, Integer::sum);
      eval.resetConnectBackoff();
      if (!PASSING.contains(code)) {
        // Every job has the same spec and data: the next submit would be refused the same way.
        submitting = false;
        log.line("a submit was refused, no more jobs are submitted: " + e.getStatus());
      }
    }
  }

  /** Asks the eval service for the state of every job not yet finished. */
  private void refresh() {
    for (TrackedJob tracked : List.copyOf(jobs.values())) {
      if (finished(tracked)) {
        continue;
      }
      try {
        Job job = EvalClient.of(eval).withDeadline(Duration.ofSeconds(10)).getJob(tracked.id());
        jobs.put(tracked.id(), new TrackedJob(tracked.folder(), tracked.id(), job));
      } catch (StatusRuntimeException unavailable) {
        eval.resetConnectBackoff();
        return;
      }
    }
  }

  private static boolean finished(TrackedJob job) {
    return DrillClients.finished(job.latest());
  }

  /** Stops submitting; the jobs already submitted run on. */
  void stopSubmitting() throws InterruptedException {
    submitting = false;
    if (loop != null) {
      loop.join(Duration.ofMinutes(2));
    }
  }

  /** Waits until every tracked job has finished or {@code timeout} passes; true when all did. */
  boolean awaitAll(Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (System.nanoTime() < deadline) {
      refresh();
      if (jobs.values().stream().allMatch(JobLoad::finished)) {
        return true;
      }
      Thread.sleep(POLL_MILLIS);
    }
    return false;
  }

  /**
   * Adds the jobs the eval service lists in one of the folders submitted to but whose submit answer
   * was lost (the service killed after admitting the job); returns how many.
   */
  int reconcile() {
    Set<String> known = ConcurrentHashMap.newKeySet();
    jobs.values().forEach(job -> known.add(job.folder()));
    int found = 0;
    try {
      for (Job job : EvalClient.of(eval).withDeadline(Duration.ofSeconds(30)).listJobs()) {
        Path name = Path.of(job.getOutputDir()).getFileName();
        String folder = name == null ? "" : name.toString();
        if (folders.contains(folder) && !known.contains(folder) && !jobs.containsKey(job.getId())) {
          jobs.put(job.getId(), new TrackedJob(folder, job.getId(), job));
          found++;
        }
      }
    } catch (StatusRuntimeException e) {
      log.line("could not list the eval service's jobs: " + e.getStatus());
    }
    return found;
  }

  /** The submitted jobs, in folder order. */
  List<TrackedJob> jobs() {
    List<TrackedJob> all = new ArrayList<>(jobs.values());
    all.sort(java.util.Comparator.comparing(TrackedJob::folder));
    return all;
  }

  /** Submits that got no job, by status code. */
  Map<String, Integer> submitRefusals() {
    return new TreeMap<>(submitRefusals);
  }

  @Override
  public void close() throws InterruptedException {
    stopSubmitting();
  }
}
