package dev.tenbin.eval.job;

import dev.tenbin.core.AlreadyExistsException;
import dev.tenbin.core.Cancellation;
import dev.tenbin.core.NotFoundException;
import dev.tenbin.core.PreconditionException;
import dev.tenbin.core.SafeText;
import dev.tenbin.core.TenbinException;
import dev.tenbin.eval.plan.Work;
import dev.tenbin.eval.store.CellRecord;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The jobs of an eval service: checked and queued at submit, run one at a time (the services a job
 * calls are the shared resource), watched, cancelled, listed. Plain Java; the gRPC adapter only
 * translates.
 *
 * <p>Every job lives in the {@link JobTable}: a new manager over the same state folder lists every
 * job again, and queues again those that were queued or running when the last one stopped (killed
 * or shut down); their runs resume where they were, as the runner never recomputes a stored cell. A
 * job whose cancellation was asked for is never resumed. Each submit, start, resume, cancel and end
 * is logged with the job's id.
 */
public final class JobManager implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(JobManager.class);
  private static final int MAX_ERROR_CHARS = 4000;

  /** The lifecycle of a job. */
  public enum State {
    QUEUED,
    RUNNING,
    SUCCEEDED,
    FAILED,
    CANCELLED;

    public boolean finished() {
      return this == SUCCEEDED || this == FAILED || this == CANCELLED;
    }
  }

  /** A point-in-time view of a job; {@code started} and {@code ended} are null until then. */
  public record Snapshot(
      String id,
      String name,
      State state,
      int cellsTotal,
      int cellsDone,
      int cellsCached,
      String runningWork,
      String error,
      String errorCode,
      Path outputDirectory,
      Instant submitted,
      Instant started,
      Instant ended) {}

  /** Runs an admitted job; tests replace it to avoid real services. */
  @FunctionalInterface
  public interface Executor {
    JobOutcome run(AdmittedJob job, JobListener listener, Cancellation cancellation);

    /**
     * Runs an admitted job, told apart why it should stop: {@code cancelled}, a client cancelled
     * it; {@code stopping}, the service shuts down and the job resumes at its next start. An
     * executor whose work runs outside this process (a Kubernetes Job) lets it run on when
     * stopping, and follows it again when resumed; by default both stop the run.
     */
    default JobOutcome run(
        AdmittedJob job, JobListener listener, Cancellation cancelled, Cancellation stopping) {
      return run(job, listener, () -> cancelled.isCancelled() || stopping.isCancelled());
    }
  }

  private final JobAdmission admission;
  private final JobTable table;
  private final Executor executor;
  private final ExecutorService worker =
      Executors.newSingleThreadExecutor(
          runnable -> {
            Thread thread = new Thread(runnable, "tenbin-eval-jobs");
            thread.setDaemon(true);
            return thread;
          });
  private final Map<String, TrackedJob> jobs = new LinkedHashMap<>();
  private final java.util.Set<String> importing = new java.util.HashSet<>();
  private final java.util.function.BooleanSupplier processStopping;
  private long nextSequence = 1;
  private volatile boolean closing;

  /**
   * Opens the job table under {@code folders}' state folder, lists its jobs again and queues again
   * those that were queued or running.
   */
  public static JobManager open(ServiceFolders folders, Executor executor) {
    return open(folders, executor, ModelCatalog.UNKNOWN);
  }

  /**
   * As {@link #open(ServiceFolders, Executor)}, checking at submit that every model a job names is
   * one {@code models} knows.
   */
  public static JobManager open(ServiceFolders folders, Executor executor, ModelCatalog models) {
    return open(folders, executor, models, 1);
  }

  /**
   * As above, splitting each collection of a job whose spec has no {@code shards:} into {@code
   * defaultShards} shards.
   */
  public static JobManager open(
      ServiceFolders folders, Executor executor, ModelCatalog models, int defaultShards) {
    return open(folders, executor, models, defaultShards, 1);
  }

  /**
   * As above, also keeping each shard of a job whose spec has no {@code replicas:} as {@code
   * defaultReplicas} copies.
   */
  public static JobManager open(
      ServiceFolders folders,
      Executor executor,
      ModelCatalog models,
      int defaultShards,
      int defaultReplicas) {
    JobAdmission admission =
        JobAdmission.of(folders)
            .withModels(models)
            .withDefaultShards(defaultShards)
            .withDefaultReplicas(defaultReplicas);
    JobTable table = JobTable.open(folders.stateDirectory());
    try {
      return new JobManager(admission, table, executor);
    } catch (RuntimeException e) {
      table.close();
      throw e;
    }
  }

  JobManager(JobAdmission admission, JobTable table, Executor executor) {
    this(admission, table, executor, dev.tenbin.core.OrderedShutdown::isShuttingDown);
  }

  /**
   * @param processStopping whether the process is shutting down: a run that ends then (cancelled by
   *     the stop, or failed because the services it calls went away first) is stopped, not ended,
   *     and resumes at the next start
   */
  JobManager(
      JobAdmission admission,
      JobTable table,
      Executor executor,
      java.util.function.BooleanSupplier processStopping) {
    this.admission = admission;
    this.table = table;
    this.executor = executor;
    this.processStopping = processStopping;
    for (JobRecord record : table.load()) {
      TrackedJob job = new TrackedJob(record, null);
      jobs.put(job.id, job);
      nextSequence = Math.max(nextSequence, record.sequence() + 1);
      if (record.state().finished()) {
        continue;
      }
      if (record.cancelRequested()) {
        job.end(State.CANCELLED, job.error, job.errorCode);
        persist(
            job,
            "cancelled",
            "its cancellation was asked for before the service stopped; not resumed");
        log.info(
            "job {} cancelled: its cancellation was asked for before the service stopped; not resumed",
            job.id);
        continue;
      }
      table.event(
          job.id,
          "requeued",
          "was "
              + record.state().name().toLowerCase(java.util.Locale.ROOT)
              + " when the service stopped");
      job.state = State.QUEUED; // waiting to resume; the table says running until it does
      log.info(
          "job {} queued again after a restart (it was {} when the service stopped)",
          job.id,
          record.state());
      worker.submit(() -> execute(job));
    }
  }

  /** The results root and data roots this manager confines jobs to. */
  public JobAdmission admission() {
    return admission;
  }

  /**
   * Checks and queues a job; a bad spec, task set, dataset or output folder is refused at once, and
   * so is a folder that is, holds or lies inside another job's ({@link #checkFolderIsOwn}).
   */
  public synchronized Snapshot submit(JobRequest request) {
    if (closing) {
      throw new dev.tenbin.core.UnavailableException("the eval service is shutting down");
    }
    String id = newId();
    AdmittedJob admitted = admission.admit(id, request);
    checkFolderIsOwn(admitted.directory(), request);
    JobRecord record =
        new JobRecord(
            id,
            nextSequence++,
            admitted.spec().name(),
            State.QUEUED,
            false,
            request,
            admitted.directory(),
            Instant.now(),
            null,
            null,
            0,
            0,
            0,
            "");
    TrackedJob job = new TrackedJob(record, admitted);
    table.save(record);
    table.event(id, "submitted", "into " + admitted.directory());
    jobs.put(id, job);
    log.info(
        "job {} submitted: {} into {}",
        id,
        SafeText.quote(admitted.spec().name()),
        admitted.directory());
    worker.submit(() -> execute(job));
    return job.snapshot();
  }

  /**
   * A job's folder belongs to that job alone: {@code folder} may not be another job's folder (live
   * or finished), lie inside one or hold one. The one exception is the same job sent again (the
   * same spec and task sets) to the folder of a job of it that has ended: its run resumes there,
   * computing only the cells still missing. Folders are compared as real paths, as they are now.
   */
  private void checkFolderIsOwn(Path folder, JobRequest request) {
    String shown = SafeText.quote(request.outputDirectory());
    for (TrackedJob job : jobs.values()) {
      Path other = dev.tenbin.eval.confine.ConfinedRoots.realPath(job.directory);
      if (other.equals(folder)) {
        if (!job.isFinished()) {
          throw new PreconditionException(
              "output_dir", "job " + job.id + " is already writing into " + folder);
        }
        if (!job.request.sameJob(request)) {
          throw new AlreadyExistsException(
              "output_dir",
              "output_dir "
                  + shown
                  + " is the folder of job "
                  + job.id
                  + ", which ran another spec; a folder holds one job's cells and reports:"
                  + " choose another output_dir (the same spec and task sets resume "
                  + job.id
                  + "'s folder)");
        }
      } else if (JobAdmission.overlap(folder, other)) {
        throw new PreconditionException(
            "output_dir",
            "output_dir "
                + shown
                + (folder.startsWith(other) ? " lies inside" : " holds")
                + " the folder of job "
                + job.id
                + "; job folders may not nest: choose a folder beside it");
      }
    }
  }

  private String newId() {
    String id;
    do {
      byte[] bytes = new byte[6];
      ThreadLocalRandom.current().nextBytes(bytes);
      id = "job-" + HexFormat.of().formatHex(bytes);
    } while (jobs.containsKey(id) || importing.contains(id));
    return id;
  }

  /** Fills the folder of an imported job; returns the number of cells it stored. */
  @FunctionalInterface
  public interface ImportWriter {
    int write(Path folder) throws java.io.IOException;
  }

  /** The folder, under the results root, that holds one folder per imported job. */
  public static final String IMPORTS_FOLDER = "imports";

  /**
   * Records results computed elsewhere (a TREC run, another service's job folder) as a finished job
   * of their own, so its cells join the all-jobs leaderboard and it has a page, files and an
   * archive like any job: a new folder {@code imports/ID} under the results root is filled by
   * {@code writer} (outside the manager's lock), then the job is recorded as SUCCEEDED with {@code
   * description} (YAML saying what was imported) as its spec text and no task sets. A writer that
   * fails leaves no job and no folder; a service killed while a writer runs leaves a folder that no
   * job names (removed by hand).
   *
   * @param name the job's name
   * @throws dev.tenbin.core.UnavailableException while the service shuts down
   */
  public Snapshot importResults(String name, String description, ImportWriter writer) {
    String id;
    Path folder;
    JobRequest request;
    synchronized (this) {
      if (closing) {
        throw new dev.tenbin.core.UnavailableException("the eval service is shutting down");
      }
      id = newId();
      request = new JobRequest(description, List.of(), IMPORTS_FOLDER + "/" + id);
      folder = admission.importFolder(request.outputDirectory());
      checkFolderIsOwn(folder, request);
      importing.add(id);
    }
    Instant started = Instant.now();
    int cells;
    try {
      Files.createDirectories(folder);
      cells = writer.write(folder);
    } catch (java.io.IOException | RuntimeException e) {
      deleteQuietly(folder);
      synchronized (this) {
        importing.remove(id);
      }
      if (e instanceof java.io.IOException io) {
        throw new java.io.UncheckedIOException("cannot write the imported job " + id, io);
      }
      throw (RuntimeException) e;
    }
    synchronized (this) {
      importing.remove(id);
      JobRecord record =
          new JobRecord(
              id,
              nextSequence++,
              name,
              State.SUCCEEDED,
              false,
              request,
              folder,
              started,
              started,
              Instant.now(),
              cells,
              cells,
              0,
              "",
              "");
      TrackedJob job = new TrackedJob(record, null);
      table.save(record);
      table.event(id, "imported", cells + " cells into " + folder);
      jobs.put(id, job);
      log.info("job {} imported: {} cells into {}", id, cells, folder);
      return job.snapshot();
    }
  }

  private static void deleteQuietly(Path folder) {
    try (var paths = Files.walk(folder)) {
      for (Path path : paths.sorted(java.util.Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(path);
      }
    } catch (java.io.IOException | RuntimeException e) {
      log.warn("cannot remove the folder of a failed import {}: {}", folder, e.toString());
    }
  }

  private void execute(TrackedJob job) {
    boolean resumed;
    boolean cancelledBeforeStart;
    synchronized (job) {
      if (job.state.finished() || closing) {
        return;
      }
      cancelledBeforeStart = job.cancelRequested;
      resumed = job.started != null;
      if (!cancelledBeforeStart) {
        job.state = State.RUNNING;
        job.started = Instant.now();
      }
    }
    if (cancelledBeforeStart) {
      finish(job, State.CANCELLED, job.error);
      return;
    }
    persist(job, resumed ? "resumed" : "started", "");
    log.info("job {} {}", job.id, resumed ? "resumed" : "started");
    job.publish();
    AdmittedJob admitted = job.admitted;
    if (admitted == null) {
      try {
        admitted = admission.admit(job.id, job.request);
      } catch (TenbinException e) {
        finish(
            job,
            State.FAILED,
            "the job is no longer valid on this service: " + e.getMessage(),
            "FAILED_PRECONDITION");
        return;
      }
      if (!admitted.directory().equals(job.directory)) {
        finish(
            job,
            State.FAILED,
            "the job's folder " + job.directory + " is no longer inside the results root",
            "FAILED_PRECONDITION");
        return;
      }
    }
    State end;
    String error;
    String code;
    try {
      JobOutcome outcome = executor.run(admitted, job, () -> job.cancelRequested, this::stopping);
      end =
          outcome.cancelled()
              ? State.CANCELLED
              : outcome.succeeded() ? State.SUCCEEDED : State.FAILED;
      error = String.join("; ", outcome.failures());
      code = outcome.failureCode();
    } catch (RuntimeException | StackOverflowError e) {
      end = job.cancelRequested || stopping() ? State.CANCELLED : State.FAILED;
      error = JobRunner.describe(e);
      code = JobRunner.codeOf(e);
      if (end == State.FAILED) {
        log.warn("job {} failed", job.id, e);
      }
    }
    if (end == State.CANCELLED && stopping() && !job.cancelRequested) {
      synchronized (job) {
        job.runningWork = "";
      }
      table.event(job.id, "stopped", "the service shut down; the job resumes when it starts again");
      log.info(
          "job {} stopped by the service's shutdown; it resumes when the service starts again",
          job.id);
      return;
    }
    finish(job, end, error, code);
  }

  /** Whether this manager or the whole process is stopping (not a client's cancellation). */
  private boolean stopping() {
    return closing || processStopping.getAsBoolean();
  }

  private void finish(TrackedJob job, State state, String error) {
    finish(job, state, error, state == State.FAILED ? "INTERNAL" : "");
  }

  private void finish(TrackedJob job, State state, String error, String code) {
    Snapshot snapshot;
    synchronized (job) {
      // the end state and its event under one lock: whoever sees the job ended finds its event
      job.end(state, error, code);
      snapshot = job.snapshot();
      persist(
          job,
          state.name().toLowerCase(java.util.Locale.ROOT),
          snapshot.cellsDone() + "/" + snapshot.cellsTotal() + " cells");
    }
    if (state == State.FAILED) {
      log.info("job {} failed: {}", job.id, SafeText.escaped(snapshot.error(), 500));
    } else {
      log.info(
          "job {} {}: {}/{} cells ({} already stored)",
          job.id,
          state.name().toLowerCase(java.util.Locale.ROOT),
          snapshot.cellsDone(),
          snapshot.cellsTotal(),
          snapshot.cellsCached());
    }
    job.publish();
  }

  /**
   * Saves the job's record and logs the event; a table that cannot be written is logged, not fatal
   * to the run.
   */
  private void persist(TrackedJob job, String event, String detail) {
    try {
      synchronized (job) {
        // under the job's lock, so an older view of the job never overwrites a newer one
        table.save(job.record());
        table.event(job.id, event, detail);
      }
    } catch (RuntimeException e) {
      log.error("job {}: cannot record '{}' in the job table", job.id, event, e);
    }
  }

  public synchronized Snapshot get(String id) {
    return find(id).snapshot();
  }

  /** Every job, in submission order. */
  public synchronized List<Snapshot> list() {
    List<Snapshot> all = new ArrayList<>();
    jobs.values().forEach(job -> all.add(job.snapshot()));
    return all;
  }

  /**
   * Asks a job to stop: a queued job never starts, a running one stops at its next check (between
   * work items or encoder batches, never inside a native call) and ends CANCELLED. The request is
   * recorded at once, so a job cancelled while running is not resumed after a restart.
   */
  public Snapshot cancel(String id) {
    TrackedJob job;
    synchronized (this) {
      job = find(id);
    }
    boolean ended;
    synchronized (job) {
      if (job.state.finished() || job.cancelRequested) {
        return job.snapshot();
      }
      job.cancelRequested = true;
      ended = job.state == State.QUEUED;
    }
    if (ended) {
      finish(job, State.CANCELLED, job.error);
    } else {
      persist(job, "cancel_requested", "");
      log.info("job {} cancel requested; it stops at its next check", job.id);
      job.publish();
    }
    return job.snapshot();
  }

  /**
   * Sends the job's state now and at every change until it finishes; returns a handle that stops
   * the updates (call it when the watcher goes away).
   */
  public Runnable watch(String id, Consumer<Snapshot> watcher) {
    TrackedJob job;
    synchronized (this) {
      job = find(id);
    }
    job.watchers.add(watcher);
    watcher.accept(job.snapshot());
    return () -> job.watchers.remove(watcher);
  }

  /**
   * The job's events log (submitted, started, resumed, cancel requested, ended ...), oldest first.
   */
  public List<com.fasterxml.jackson.databind.JsonNode> events(String id) {
    synchronized (this) {
      find(id);
    }
    return table.events(id);
  }

  /** The request a job was submitted with: its spec and task sets as the client sent them. */
  public synchronized JobRequest request(String id) {
    return find(id).request;
  }

  /** The output folder of a job, for reading its stored cells. */
  public synchronized Path directory(String id) {
    return find(id).directory;
  }

  private TrackedJob find(String id) {
    TrackedJob job = jobs.get(id);
    if (job == null) {
      throw new NotFoundException(
          "job_id", "no job " + SafeText.quote(id) + " on this eval service");
    }
    return job;
  }

  /**
   * Stops the running job at its next check without cancelling it (it stays running in the table
   * and resumes at the next start), waits for it, and releases the table.
   */
  @Override
  public void close() {
    synchronized (this) {
      if (closing) {
        return;
      }
      closing = true;
    }
    worker.shutdown();
    try {
      if (!worker.awaitTermination(60, TimeUnit.SECONDS)) {
        log.warn("the running job did not stop within 60 s; releasing the job table anyway");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    table.close();
  }

  /** A job and its live counters; it is the job's listener. */
  private static final class TrackedJob implements JobListener {
    final String id;
    final long sequence;
    final String name;
    final JobRequest request;
    final Path directory;
    final Instant submitted;
    final AdmittedJob admitted;
    final List<Consumer<Snapshot>> watchers = new CopyOnWriteArrayList<>();
    volatile boolean cancelRequested;
    State state;
    Instant started;
    Instant ended;
    int total;
    int done;
    int cached;
    String runningWork = "";
    String error;
    String errorCode;

    TrackedJob(JobRecord record, AdmittedJob admitted) {
      this.id = record.id();
      this.sequence = record.sequence();
      this.name = record.name();
      this.request = record.request();
      this.directory = record.outputDirectory();
      this.submitted = record.submitted();
      this.admitted = admitted;
      this.cancelRequested = record.cancelRequested();
      this.state = record.state();
      this.started = record.started();
      this.ended = record.ended();
      this.total = record.cellsTotal();
      this.done = record.cellsDone();
      this.cached = record.cellsCached();
      this.error = record.error();
      this.errorCode = record.errorCode();
    }

    synchronized boolean isFinished() {
      return state.finished();
    }

    synchronized void end(State state, String error, String code) {
      this.state = state;
      this.error = SafeText.escaped(error, MAX_ERROR_CHARS);
      this.errorCode = this.error.isEmpty() ? "" : code;
      this.ended = Instant.now();
      this.runningWork = "";
    }

    synchronized JobRecord record() {
      return new JobRecord(
          id,
          sequence,
          name,
          state,
          cancelRequested,
          request,
          directory,
          submitted,
          started,
          ended,
          total,
          done,
          cached,
          error,
          errorCode);
    }

    synchronized Snapshot snapshot() {
      return new Snapshot(
          id,
          name,
          state,
          total,
          done,
          cached,
          runningWork,
          error,
          errorCode,
          directory,
          submitted,
          started,
          ended);
    }

    void publish() {
      Snapshot snapshot = snapshot();
      for (Consumer<Snapshot> watcher : watchers) {
        try {
          watcher.accept(snapshot);
        } catch (RuntimeException e) {
          watchers.remove(watcher);
        }
      }
    }

    @Override
    public void planned(int total, int stored) {
      synchronized (this) {
        this.total = total;
        this.done = stored;
        this.cached = stored;
      }
      publish();
    }

    @Override
    public void workStarted(Work work, int missingCells) {
      synchronized (this) {
        runningWork = work.label();
      }
      publish();
    }

    @Override
    public void cellStored(CellRecord record) {
      synchronized (this) {
        done++;
      }
      publish();
    }

    @Override
    public void progress(int cellsDone, String running) {
      synchronized (this) {
        this.done = cellsDone;
        this.runningWork = running;
      }
      publish();
    }

    @Override
    public void workFailed(Work work, String message) {
      synchronized (this) {
        error =
            SafeText.escaped(error.isEmpty() ? message : error + "; " + message, MAX_ERROR_CHARS);
      }
      publish();
    }
  }
}
