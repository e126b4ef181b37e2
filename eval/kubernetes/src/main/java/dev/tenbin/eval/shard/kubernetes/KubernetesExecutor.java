package dev.tenbin.eval.shard.kubernetes;

import dev.tenbin.core.Cancellation;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.apis.BatchV1Api;
import io.kubernetes.client.openapi.models.V1Job;
import io.kubernetes.client.openapi.models.V1JobCondition;
import io.kubernetes.client.openapi.models.V1JobList;
import io.kubernetes.client.openapi.models.V1JobStatus;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * {@code tenbin run --executor kubernetes}: creates the {@link IndexedJobs Indexed Job} of a
 * sharded run, polls it and reports each shard as it finishes, until the Job ends. A failed pod
 * whose index is not in {@code failedIndexes} is being retried by Kubernetes (up to {@code
 * backoffLimitPerIndex}) and is only reported; the run fails when the Job does (condition {@code
 * Failed}), naming the failed indexes. Cancelling deletes the Job with propagation {@code
 * Background}, so its pods go too. Merging the shards' cells is the caller's (it reads the shared
 * results folder).
 */
public final class KubernetesExecutor {
  /** How a Job ended. */
  public enum State {
    SUCCEEDED,
    FAILED,
    CANCELLED,
    /** This process stopped following the Job, which runs on (the eval service shutting down). */
    DETACHED
  }

  /** Sees the shards' progress at each change. */
  @FunctionalInterface
  public interface Progress {
    Progress NONE = (completed, failed, active) -> {};

    /** Indexes completed and failed so far, and pods running now. */
    void changed(SortedSet<Integer> completed, SortedSet<Integer> failed, int active);
  }

  /**
   * What the executor saw last.
   *
   * @param state how the Job ended
   * @param completed indexes that succeeded
   * @param failed indexes that failed beyond their retries
   * @param message the Job's Failed condition (reason and message), or ""
   */
  public record Result(
      State state, SortedSet<Integer> completed, SortedSet<Integer> failed, String message) {}

  /** Consecutive failed reads of the Job (5xx, 429, no connection) before the run gives up. */
  static final int MAX_READ_FAILURES = 10;

  private final BatchV1Api api;
  private final IndexedJobSettings settings;
  private final PrintWriter out;
  private final Duration pollInterval;
  private final AtomicBoolean deleted = new AtomicBoolean();
  private volatile String name;

  public KubernetesExecutor(
      BatchV1Api api, IndexedJobSettings settings, PrintWriter out, Duration pollInterval) {
    this.api = api;
    this.settings = settings;
    this.out = out;
    this.pollInterval = pollInterval;
    this.name = settings.name();
  }

  /** Creates the Job and follows it until it ends or {@code cancellation} says stop. */
  public Result run(Cancellation cancellation) {
    return run(cancellation, Cancellation.NEVER, Progress.NONE);
  }

  /**
   * Creates the Job, or follows the one already there (a Job carrying every label of the settings'
   * {@code labels}, when there are any), until it ends. {@code cancellation} deletes the Job;
   * {@code detach} only stops following it (the Job runs on, to be followed again later).
   */
  public Result run(Cancellation cancellation, Cancellation detach, Progress progress) {
    String existing = settings.labels().isEmpty() ? null : findExisting();
    if (existing != null) {
      name = existing;
      print("following the Job already there: " + settings.namespace() + "/" + existing);
    } else {
      create();
    }
    Cancellation stop = () -> cancellation.isCancelled() || detach.isCancelled();
    SortedSet<Integer> completed = new TreeSet<>();
    SortedSet<Integer> failed = new TreeSet<>();
    int podFailures = 0;
    int readFailures = 0;
    String lastLine = "";
    while (true) {
      if (stop.isCancelled()) {
        return stopped(cancellation, completed, failed);
      }
      V1Job current;
      try {
        current = api.readNamespacedJob(name, settings.namespace()).execute();
        readFailures = 0;
      } catch (ApiException e) {
        // The API server restarting or a connection lost: keep polling a while; the Job runs on.
        boolean transientFailure = e.getCode() == 0 || e.getCode() == 429 || e.getCode() >= 500;
        if (!transientFailure || ++readFailures > MAX_READ_FAILURES) {
          throw failure("read", e);
        }
        print("cannot read the Job (HTTP " + e.getCode() + "); trying again");
        if (!pause(stop)) {
          return stopped(cancellation, completed, failed);
        }
        continue;
      }
      V1JobStatus status = current.getStatus() == null ? new V1JobStatus() : current.getStatus();
      SortedSet<Integer> nowCompleted = IndexRanges.parse(status.getCompletedIndexes());
      SortedSet<Integer> nowFailed = IndexRanges.parse(status.getFailedIndexes());
      for (int index : nowCompleted) {
        if (completed.add(index)) {
          print("shard " + index + "/" + settings.shards() + " succeeded");
        }
      }
      for (int index : nowFailed) {
        if (failed.add(index)) {
          print(
              "shard "
                  + index
                  + "/"
                  + settings.shards()
                  + " failed after "
                  + settings.backoffLimitPerIndex()
                  + " retries");
        }
      }
      int nowPodFailures = Objects.requireNonNullElse(status.getFailed(), 0);
      if (nowPodFailures > podFailures) {
        print(
            (nowPodFailures - podFailures)
                + " pod(s) failed; Kubernetes starts an index again until it has failed "
                + (settings.backoffLimitPerIndex() + 1)
                + " times");
        podFailures = nowPodFailures;
      }
      int active = Objects.requireNonNullElse(status.getActive(), 0);
      String line =
          String.format(
              java.util.Locale.ROOT,
              "%d/%d shards done, %d running, %d failed",
              completed.size(),
              settings.shards(),
              active,
              failed.size());
      if (!line.equals(lastLine)) {
        print(line);
        lastLine = line;
        progress.changed(
            Collections.unmodifiableSortedSet(new TreeSet<>(completed)),
            Collections.unmodifiableSortedSet(new TreeSet<>(failed)),
            active);
      }
      V1JobCondition complete = condition(status, "Complete");
      if (complete != null) {
        return new Result(State.SUCCEEDED, completed, failed, "");
      }
      V1JobCondition failure = condition(status, "Failed");
      if (failure != null) {
        String message =
            Objects.requireNonNullElse(failure.getReason(), "")
                + (failure.getMessage() == null ? "" : ": " + failure.getMessage());
        print("the Job failed (" + message + "); failed shards: " + failed);
        return new Result(State.FAILED, completed, failed, message);
      }
      if (!pause(stop)) {
        return stopped(cancellation, completed, failed);
      }
    }
  }

  /** The Job's name: the settings', or that of the Job found running. */
  public String jobName() {
    return name;
  }

  private Result stopped(
      Cancellation cancellation, SortedSet<Integer> completed, SortedSet<Integer> failed) {
    if (cancellation.isCancelled()) {
      cancel();
      return new Result(State.CANCELLED, completed, failed, "cancelled");
    }
    print("stopped following Job " + settings.namespace() + "/" + name + "; it runs on");
    return new Result(State.DETACHED, completed, failed, "detached");
  }

  /** The name of a Job carrying every label of the settings' labels, or null. */
  private String findExisting() {
    String selector =
        settings.labels().entrySet().stream()
            .sorted(java.util.Map.Entry.comparingByKey())
            .map(e -> e.getKey() + "=" + e.getValue())
            .collect(java.util.stream.Collectors.joining(","));
    V1JobList found =
        call(
            () -> api.listNamespacedJob(settings.namespace()).labelSelector(selector).execute(),
            "list");
    return found.getItems().stream()
        .filter(j -> j.getMetadata() != null && j.getMetadata().getDeletionTimestamp() == null)
        .map(j -> j.getMetadata().getName())
        .findFirst()
        .orElse(null);
  }

  private void create() {
    V1Job job = IndexedJobs.build(settings);
    call(() -> api.createNamespacedJob(settings.namespace(), job).execute(), "create");
    print(
        "created Indexed Job "
            + settings.namespace()
            + "/"
            + settings.name()
            + ": "
            + settings.shards()
            + " shards, "
            + settings.parallelism()
            + " at once, "
            + settings.backoffLimitPerIndex()
            + " retries per shard");
  }

  /**
   * Deletes the Job (propagation Background: its pods are deleted after it); safe to call more than
   * once and from a shutdown hook.
   */
  public void cancel() {
    if (!deleted.compareAndSet(false, true)) {
      return;
    }
    try {
      api.deleteNamespacedJob(name, settings.namespace()).propagationPolicy("Background").execute();
      print("deleted Job " + settings.namespace() + "/" + name);
    } catch (ApiException e) {
      if (e.getCode() != 404) {
        print("could not delete Job " + name + ": HTTP " + e.getCode());
      }
    }
  }

  private static V1JobCondition condition(V1JobStatus status, String type) {
    List<V1JobCondition> conditions = status.getConditions();
    if (conditions == null) {
      return null;
    }
    return conditions.stream()
        .filter(c -> type.equals(c.getType()) && "True".equals(c.getStatus()))
        .findFirst()
        .orElse(null);
  }

  private boolean pause(Cancellation cancellation) {
    long until = System.nanoTime() + pollInterval.toNanos();
    while (System.nanoTime() < until) {
      if (cancellation.isCancelled()) {
        return false;
      }
      try {
        Thread.sleep(Math.max(1, Math.min(100, (until - System.nanoTime()) / 1_000_000)));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return false;
      }
    }
    return true;
  }

  private void print(String text) {
    synchronized (out) {
      out.println("tenbin: kubernetes: " + text);
      out.flush();
    }
  }

  private interface ApiCall<T> {
    T call() throws ApiException;
  }

  private <T> T call(ApiCall<T> call, String verb) {
    try {
      return call.call();
    } catch (ApiException e) {
      throw failure(verb, e);
    }
  }

  private KubernetesException failure(String verb, ApiException e) {
    return new KubernetesException(
        "cannot "
            + verb
            + " Job "
            + settings.namespace()
            + "/"
            + name
            + ": HTTP "
            + e.getCode()
            + (e.getResponseBody() == null || e.getResponseBody().isBlank()
                ? ""
                : " " + e.getResponseBody().strip()),
        e);
  }

  /** A call to the Kubernetes API that failed. */
  public static final class KubernetesException extends RuntimeException {
    KubernetesException(String message, Throwable cause) {
      super(message, cause);
    }
  }
}
