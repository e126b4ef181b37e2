package dev.tenbin.eval.job;

import dev.tenbin.core.InvalidInputException;
import dev.tenbin.core.NotFoundException;
import dev.tenbin.core.PreconditionException;
import dev.tenbin.eval.store.CellRecord;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * The jobs of a running eval service: submitted, queued and run one at a time (the services a job
 * calls are the shared resource), watched, cancelled. Plain Java; the gRPC adapter only translates.
 */
public final class JobManager implements AutoCloseable {
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

  /** A point-in-time view of a job. */
  public record Snapshot(
      String id, State state, int cellsTotal, int cellsDone, int cellsCached, String runningWork, String error, Path outputDirectory) {}

  /** Runs a submitted job; tests replace it to avoid real services. */
  @FunctionalInterface
  public interface Executor {
    JobOutcome run(JobSpec spec, Path directory, JobListener listener, dev.tenbin.core.Cancellation cancellation);
  }

  private final Executor executor;
  private final Path workingDirectory;
  private final ExecutorService worker =
      Executors.newSingleThreadExecutor(runnable -> {
        Thread thread = new Thread(runnable, "tenbin-eval-jobs");
        thread.setDaemon(true);
        return thread;
      });
  private final Map<String, TrackedJob> jobs = new LinkedHashMap<>();

  /**
   * @param executor runs one job (normally {@link JobLauncher#run})
   * @param workingDirectory relative task set paths and output folders of submitted specs resolve here
   */
  public JobManager(Executor executor, Path workingDirectory) {
    this.executor = executor;
    this.workingDirectory = workingDirectory.toAbsolutePath();
  }

  /** Checks and queues a job; a bad spec or output folder is refused at once. */
  public synchronized Snapshot submit(String specYaml, String outputDirectory) {
    if (outputDirectory == null || outputDirectory.isBlank()) {
      throw new InvalidInputException("output_dir", "output_dir is required: the folder the job writes into");
    }
    if (specYaml == null || specYaml.isBlank()) {
      throw new InvalidInputException("spec_yaml", "spec_yaml is required: the job spec as YAML text");
    }
    JobSpec spec;
    try {
      spec = JobSpec.parse(specYaml, workingDirectory.resolve("submitted-job.yaml"));
    } catch (InvalidInputException e) {
      throw new InvalidInputException("spec_yaml", e.getMessage());
    }
    Path directory = workingDirectory.resolve(outputDirectory).normalize();
    for (TrackedJob job : jobs.values()) {
      if (!job.state.finished() && job.directory.equals(directory)) {
        throw new PreconditionException("output_dir", "job " + job.id + " is already writing into " + directory);
      }
    }
    TrackedJob job = new TrackedJob("job-" + UUID.randomUUID().toString().replace("-", "").substring(0, 12), spec, directory);
    jobs.put(job.id, job);
    worker.submit(() -> execute(job));
    return job.snapshot();
  }

  private void execute(TrackedJob job) {
    synchronized (job) {
      if (job.state == State.CANCELLED) {
        return;
      }
      job.state = State.RUNNING;
    }
    job.publish();
    try {
      JobOutcome outcome = executor.run(job.spec, job.directory, job, () -> job.cancelRequested);
      synchronized (job) {
        job.state = outcome.cancelled() ? State.CANCELLED : outcome.succeeded() ? State.SUCCEEDED : State.FAILED;
        if (!outcome.failures().isEmpty()) {
          job.error = String.join("; ", outcome.failures());
        }
        job.runningWork = "";
      }
    } catch (RuntimeException e) {
      synchronized (job) {
        job.state = job.cancelRequested ? State.CANCELLED : State.FAILED;
        job.error = JobRunner.describe(e);
        job.runningWork = "";
      }
    }
    job.publish();
  }

  public synchronized Snapshot get(String id) {
    return find(id).snapshot();
  }

  public synchronized List<Snapshot> list() {
    List<Snapshot> all = new ArrayList<>();
    jobs.values().forEach(job -> all.add(job.snapshot()));
    return all;
  }

  /** Asks a job to stop: a queued job never starts, a running one stops at its next check. */
  public Snapshot cancel(String id) {
    TrackedJob job;
    synchronized (this) {
      job = find(id);
    }
    boolean publish = false;
    synchronized (job) {
      if (!job.state.finished()) {
        job.cancelRequested = true;
        if (job.state == State.QUEUED) {
          job.state = State.CANCELLED;
          publish = true;
        }
      }
    }
    if (publish) {
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

  /** The output folder of a job, for reading its stored cells. */
  public synchronized Path directory(String id) {
    return find(id).directory;
  }

  private TrackedJob find(String id) {
    TrackedJob job = jobs.get(id);
    if (job == null) {
      throw new NotFoundException("job_id", "no job " + id + " on this eval service");
    }
    return job;
  }

  @Override
  public void close() {
    synchronized (this) {
      jobs.values().forEach(job -> job.cancelRequested = true);
    }
    worker.shutdown();
    try {
      worker.awaitTermination(30, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** A job and its live counters; it is the job's listener. */
  private static final class TrackedJob implements JobListener {
    final String id;
    final JobSpec spec;
    final Path directory;
    final List<Consumer<Snapshot>> watchers = new CopyOnWriteArrayList<>();
    volatile boolean cancelRequested;
    State state = State.QUEUED;
    int total;
    int done;
    int cached;
    String runningWork = "";
    String error = "";

    TrackedJob(String id, JobSpec spec, Path directory) {
      this.id = id;
      this.spec = spec;
      this.directory = directory;
    }

    synchronized Snapshot snapshot() {
      return new Snapshot(id, state, total, done, cached, runningWork, error, directory);
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
    public void workFailed(Work work, String message) {
      synchronized (this) {
        error = error.isEmpty() ? message : error + "; " + message;
      }
      publish();
    }
  }
}
