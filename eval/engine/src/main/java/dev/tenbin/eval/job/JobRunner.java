package dev.tenbin.eval.job;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tenbin.core.Cancellation;
import dev.tenbin.core.CancelledException;
import dev.tenbin.core.OrderedShutdown;
import dev.tenbin.core.PreconditionException;
import dev.tenbin.eval.plan.PlannedCell;
import dev.tenbin.eval.plan.RetrievalHooks;
import dev.tenbin.eval.plan.Work;
import dev.tenbin.eval.provenance.TenbinVersion;
import dev.tenbin.eval.retrieval.EncodeProgress;
import dev.tenbin.eval.retrieval.WorkCollections;
import dev.tenbin.eval.services.Services;
import dev.tenbin.eval.store.CellRecord;
import dev.tenbin.eval.store.ResultStore;
import io.grpc.Context;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Runs a planned job into its output folder, cell by cell, skipping every cell already stored.
 *
 * <p>A run may compute only a {@link PlanSlice} of the plan (a shard, {@code tenbin run --shard
 * I/K}): it then locks {@code .lock-<slice>} instead of {@code .lock}, so the shards of one job run
 * side by side in one folder (and a shard never twice at once), and logs to {@code
 * shards/<slice>.events.jsonl}. Every run writes the whole plan to {@code job.json}.
 *
 * <p>The folder holds {@code job.json} (the plan), {@code cells/} (the result store), {@code
 * candidates/} (candidate sets, one file per fingerprint) and {@code events.jsonl} (an append-only
 * log of work started, cells stored and failures). A run holds an exclusive lock on {@code .lock},
 * so two runs never write one folder at once. Killed at any moment, the folder holds only whole
 * cells; running the same job again computes exactly the missing ones.
 */
public final class JobRunner {
  private final Services services;
  private final Path directory;
  private final JobListener listener;
  private final Cancellation cancellation;
  private final RetrievalHooks cache;
  private final Duration serviceRetry;
  private final java.util.function.BooleanSupplier processStopping;
  private Path events;

  /** How long a work item waits for an UNAVAILABLE service to come back before it fails. */
  public static final Duration DEFAULT_SERVICE_RETRY = Duration.ofMinutes(5);

  public JobRunner(
      Services services,
      Path directory,
      JobListener listener,
      Cancellation cancellation,
      RetrievalHooks cache) {
    this(services, directory, listener, cancellation, cache, DEFAULT_SERVICE_RETRY);
  }

  /**
   * @param serviceRetry how long a work item keeps retrying while a service it calls is UNAVAILABLE
   *     (zero: never)
   */
  public JobRunner(
      Services services,
      Path directory,
      JobListener listener,
      Cancellation cancellation,
      RetrievalHooks cache,
      Duration serviceRetry) {
    this(
        services,
        directory,
        listener,
        cancellation,
        cache,
        serviceRetry,
        OrderedShutdown::isShuttingDown);
  }

  /**
   * @param processStopping whether this process is shutting down (a SIGTERM): a service call that
   *     fails UNAVAILABLE then stops the run, to resume at the next start, instead of failing it
   */
  JobRunner(
      Services services,
      Path directory,
      JobListener listener,
      Cancellation cancellation,
      RetrievalHooks cache,
      Duration serviceRetry,
      java.util.function.BooleanSupplier processStopping) {
    this.services = services;
    this.directory = directory;
    this.listener = listener;
    this.cancellation = cancellation;
    this.cache = cache;
    this.serviceRetry = serviceRetry;
    this.processStopping = processStopping;
  }

  public JobOutcome run(JobSpec spec, List<Work> plan) {
    return run(spec, plan, PlanSlice.WHOLE);
  }

  /**
   * Runs the work items of {@code plan} that {@code slice} selects; the outcome counts only their
   * cells.
   */
  public JobOutcome run(JobSpec spec, List<Work> plan, PlanSlice slice) {
    this.events =
        slice.name().isEmpty()
            ? directory.resolve("events.jsonl")
            : directory.resolve("shards").resolve(slice.name() + ".events.jsonl");
    long start = System.nanoTime();
    try {
      Files.createDirectories(directory);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create the job folder " + directory, e);
    }
    try (FileChannel lockFile =
            FileChannel.open(
                directory.resolve(slice.name().isEmpty() ? ".lock" : ".lock-" + slice.name()),
                StandardOpenOption.CREATE,
                StandardOpenOption.WRITE);
        FileLock lock = tryLock(lockFile)) {
      ResultStore store = ResultStore.open(directory);
      Path candidates = directory.resolve("candidates");
      Files.createDirectories(candidates);
      Files.createDirectories(events.getParent());
      writePlan(spec, plan);
      String collectionKey = collectionKey();
      JobJudgments.write(directory, plan);
      JobNanoFidelity.keep(directory, plan);
      List<Work> whole = plan;
      plan = slice.select(plan);
      int total = 0;
      int stored = 0;
      for (Work work : plan) {
        total += work.cells().size();
        for (PlannedCell cell : work.cells()) {
          stored += store.contains(cell.fingerprint()) ? 1 : 0;
        }
      }
      listener.planned(total, stored);
      event(
          "job_started",
          null,
          "cells "
              + total
              + ", stored "
              + stored
              + (slice.name().isEmpty() ? "" : ", " + slice.name()));
      if (slice.count() > 1) {
        encodeShares(spec, whole, store, candidates, slice);
      }
      int computed = 0;
      java.util.Map<String, Long> millisByKind = new java.util.TreeMap<>();
      List<String> failures = new ArrayList<>();
      String failureCode = "";
      boolean cancelled = false;
      for (Work work : plan) {
        Set<String> missing = missingCells(work, store);
        if (missing.isEmpty() && !artifactsMissing(work, candidates)) {
          continue;
        }
        if (cancellation.isCancelled()) {
          cancelled = true;
          break;
        }
        listener.workStarted(work, missing.size());
        event("work_started", work, missing.size() + " cells");
        EncodeProgress updates =
            (what, done, all) -> {
              listener.workProgress(work, done, all, what);
              cancellation.throwIfCancelled();
            };
        EncodeProgress progress =
            updates.notingTo(
                line -> {
                  event("work_note", work, line);
                  listener.workNote(work, line);
                });
        WorkCollections collections =
            new WorkCollections(workKey(collectionKey, work), progress::note);
        long workStart = System.nanoTime();
        long retryUntil = workStart + serviceRetry.toNanos();
        boolean stop = false;
        try {
          for (int attempt = 1; ; attempt++) {
            // The work item's service calls run in their own gRPC context, cancelled when it ends:
            // a call it abandoned (a stream left when the job was cancelled mid-encode) is
            // cancelled on the service too. The context names the work item's collections.
            Context.CancellableContext calls =
                Context.current()
                    .withValue(WorkCollections.CURRENT, collections)
                    .withCancellation();
            try {
              java.util.Map<String, dev.tenbin.eval.result.CellResult> runs =
                  within(
                      calls,
                      () ->
                          new WorkRunner(services, spec, candidates, progress, cache, store)
                              .runs(work, missing));
              for (CellRecord record : WorkRunner.records(work, missing, runs, spec.positions())) {
                if (store.append(record)) {
                  computed++;
                  event("cell_stored", work, record.fingerprint() + " " + record.key().label());
                  listener.cellStored(record);
                  listener.cellStored(record, runs.get(record.fingerprint()));
                }
              }
              break;
            } catch (CancelledException e) {
              cancelled = true;
              stop = true;
              event("cancelled", work, "");
              break;
            } catch (RuntimeException e) {
              if (cancellation.isCancelled()) {
                cancelled = true;
                stop = true;
                break;
              }
              if (unavailable(e) && processStopping.getAsBoolean()) {
                // This process is stopping (SIGTERM of a rolling update): the services it calls,
                // embedded ones first, hand their calls back with UNAVAILABLE. The work item is
                // not failed: the run stops here and resumes at the next start.
                cancelled = true;
                stop = true;
                event("stopped", work, "the process is shutting down: " + describe(e));
                break;
              }
              Duration wait = retryDelay(e, attempt, retryUntil);
              if (wait != null) {
                String reason = describe(e);
                event(
                    "work_retry",
                    work,
                    "attempt "
                        + attempt
                        + " failed ("
                        + reason
                        + "); retrying in "
                        + wait.toSeconds()
                        + " s");
                listener.workRetrying(work, attempt, reason);
                if (!pause(wait)) {
                  cancelled = true;
                  stop = true;
                  break;
                }
                services.resetConnectBackoff();
                continue;
              }
              String message = work.label() + ": " + describe(e);
              failures.add(message);
              if (failureCode.isEmpty()) {
                failureCode = codeOf(e);
              }
              event("work_failed", work, describe(e));
              listener.workFailed(work, message);
              listener.workFailed(work, e);
              break;
            } finally {
              calls.cancel(null);
            }
          }
        } finally {
          long millis = (System.nanoTime() - workStart) / 1_000_000;
          millisByKind.merge(work.kind().name(), millis, Long::sum);
          event("work_finished", work, millis + " ms");
        }
        if (stop) {
          break;
        }
      }
      JobOutcome outcome =
          new JobOutcome(
              total,
              stored,
              computed,
              List.copyOf(failures),
              cancelled,
              (System.nanoTime() - start) / 1_000_000,
              millisByKind,
              failureCode);
      event(
          cancelled ? "job_cancelled" : "job_finished",
          null,
          computed + " computed, " + failures.size() + " failed");
      listener.finished(outcome);
      return outcome;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot use the job folder " + directory, e);
    }
  }

  /**
   * A shard's part of the encodes of the whole job, before its own work items: for each work item
   * with cells still missing, whichever shard runs it, the corpus slices that are this shard's
   * ({@link dev.tenbin.eval.plan.WorkFamily#encodeShare}), so one corpus encodes on every shard at
   * once and its work item reads the slices back. A failure here fails nothing (the work item
   * encodes what is not recorded); it is noted and the shard goes on to its own work.
   */
  private void encodeShares(
      JobSpec spec, List<Work> whole, ResultStore store, Path candidates, PlanSlice slice) {
    for (Work work : whole) {
      Set<String> missing = missingCells(work, store);
      if (missing.isEmpty() || cancellation.isCancelled()) {
        continue;
      }
      EncodeProgress progress = (what, done, all) -> cancellation.throwIfCancelled();
      long start = System.nanoTime();
      try {
        String done =
            work.kind()
                .encodeShare(
                    new WorkRunner(services, spec, candidates, progress, cache, store),
                    work,
                    missing,
                    slice.index(),
                    slice.count());
        if (done != null) {
          String line =
              work.label() + ": " + done + " in " + (System.nanoTime() - start) / 1_000_000 + " ms";
          event("encode_share", work, done);
          listener.workNote(work, line);
        }
      } catch (CancelledException e) {
        return;
      } catch (RuntimeException e) {
        String line = work.label() + ": this shard's slices were not encoded (" + describe(e) + ")";
        event("encode_share_failed", work, describe(e));
        listener.workNote(work, line);
      }
    }
  }

  /** The fingerprints of {@code work}'s cells that {@code store} does not hold yet. */
  private static Set<String> missingCells(Work work, ResultStore store) {
    Set<String> missing = new HashSet<>();
    for (PlannedCell cell : work.cells()) {
      if (!store.contains(cell.fingerprint())) {
        missing.add(cell.fingerprint());
      }
    }
    return missing;
  }

  /** The file in the job folder holding the job's {@link #collectionKey}. */
  static final String COLLECTION_KEY_FILE = ".collection-key";

  /**
   * The job's part of its work items' collection names ({@link WorkCollections}): a random key made
   * at the job's first run and kept in the job folder, so every run of the job (a resume after a
   * kill, a shard of it, the eval service's restart) names its collections alike, and two jobs
   * never do, wherever their folders are.
   */
  private String collectionKey() throws IOException {
    Path file = directory.resolve(COLLECTION_KEY_FILE);
    if (!Files.isRegularFile(file)) {
      Path made = Files.createTempFile(directory, COLLECTION_KEY_FILE, ".tmp");
      Files.writeString(made, java.util.UUID.randomUUID() + "\n", StandardCharsets.UTF_8);
      try {
        Files.move(made, file);
      } catch (java.nio.file.FileAlreadyExistsException raced) {
        Files.deleteIfExists(made); // Another shard of the job made it first: its key holds.
      }
    }
    return Files.readString(file, StandardCharsets.UTF_8).strip();
  }

  /**
   * What identifies a work item among every job's: the job's key and, within the job, the work
   * item's family, task, model, candidate kind, cells and artifacts.
   */
  static String workKey(String collectionKey, Work work) {
    StringBuilder key =
        new StringBuilder(collectionKey)
            .append('\n')
            .append(work.kind().name())
            .append('\n')
            .append(work.task().benchmark())
            .append('/')
            .append(work.task().task())
            .append('\n')
            .append(work.model())
            .append('\n')
            .append(work.candidateKind());
    work.cells().forEach(cell -> key.append("\ncell ").append(cell.fingerprint()));
    work.artifacts().forEach(artifact -> key.append("\nartifact ").append(artifact));
    return key.toString();
  }

  /**
   * How long to wait before running a work item again after {@code failure}, or null to give up: a
   * service that is UNAVAILABLE (restarting, killed, its pod rescheduled) is waited for with
   * exponential backoff (1 s doubling, at most 30 s between tries) until {@code retryUntil};
   * nothing else is retried, and nothing while this process itself shuts down.
   */
  public static Duration retryDelay(Throwable failure, int attempt, long retryUntil) {
    if (!unavailable(failure) || OrderedShutdown.isShuttingDown()) {
      return null;
    }
    Duration wait = Duration.ofSeconds(Math.min(30, 1L << Math.min(attempt - 1, 5)));
    return System.nanoTime() + wait.toNanos() < retryUntil ? wait : null;
  }

  /**
   * Runs {@code body}, again while it fails because a service it calls is UNAVAILABLE, with the
   * backoff of {@link #retryDelay} for at most {@code budget}; null when {@code cancellation} ends
   * the wait. Anything else (and UNAVAILABLE past the budget) is thrown as it came.
   */
  public static <T> T waitingForServices(
      java.util.function.Supplier<T> body,
      Duration budget,
      Cancellation cancellation,
      java.util.function.BiConsumer<Integer, String> onRetry) {
    long retryUntil = System.nanoTime() + budget.toNanos();
    for (int attempt = 1; ; attempt++) {
      try {
        return body.get();
      } catch (RuntimeException e) {
        Duration wait = retryDelay(e, attempt, retryUntil);
        if (wait == null) {
          throw e;
        }
        onRetry.accept(attempt, String.valueOf(e.getMessage()));
        long until = System.nanoTime() + wait.toNanos();
        while (System.nanoTime() < until) {
          if (cancellation.isCancelled()) {
            return null;
          }
          try {
            Thread.sleep(Math.min(200, Math.max(1, (until - System.nanoTime()) / 1_000_000)));
          } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
            return null;
          }
        }
        if (cancellation.isCancelled()) {
          return null;
        }
      }
    }
  }

  /** Whether a service call in the failure's cause chain ended UNAVAILABLE. */
  static boolean unavailable(Throwable failure) {
    for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
      if (cause instanceof StatusRuntimeException status
          && status.getStatus().getCode() == Status.Code.UNAVAILABLE) {
        return true;
      }
      if (cause.getCause() == cause) {
        break;
      }
    }
    return false;
  }

  /** Sleeps, waking to check for cancellation; false when the job was cancelled meanwhile. */
  private boolean pause(Duration wait) {
    long until = System.nanoTime() + wait.toNanos();
    while (System.nanoTime() < until) {
      if (cancellation.isCancelled()) {
        return false;
      }
      try {
        Thread.sleep(Math.min(200, Math.max(1, (until - System.nanoTime()) / 1_000_000)));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return false;
      }
    }
    return !cancellation.isCancelled();
  }

  private static <T> T within(Context context, java.util.function.Supplier<T> body) {
    Context previous = context.attach();
    try {
      return body.get();
    } finally {
      context.detach(previous);
    }
  }

  private FileLock tryLock(FileChannel channel) throws IOException {
    FileLock lock;
    try {
      lock = channel.tryLock();
    } catch (java.nio.channels.OverlappingFileLockException e) {
      lock = null;
    }
    if (lock == null) {
      throw new PreconditionException(
          "--out",
          "another job is running in " + directory + "; wait for it or choose another --out");
    }
    return lock;
  }

  /**
   * The gRPC status code name a failure is reported with (the status mapper's: INVALID_ARGUMENT for
   * bad input, UNAVAILABLE for a service not reached, a service's own code, INTERNAL else).
   */
  static String codeOf(Throwable failure) {
    if (!(failure instanceof StatusRuntimeException)
        && dev.tenbin.core.StorageFullException.diskFull(failure).isPresent()) {
      return Status.Code.RESOURCE_EXHAUSTED.name(); // a full disk met by a write of this process
    }
    return dev.tenbin.rpc.StatusMapper.toStatusException(failure).getStatus().getCode().name();
  }

  /**
   * A failure in one line: a service's status and description, else the message, with the cause of
   * a full disk added when the message does not say it.
   */
  static String describe(Throwable failure) {
    String message = describeOnly(failure);
    if (failure instanceof StatusRuntimeException) {
      return message;
    }
    var full = dev.tenbin.core.StorageFullException.diskFull(failure);
    return full.isPresent() && !message.contains(String.valueOf(full.get().getMessage()))
        ? message + ": the disk is full (" + full.get().getMessage() + ")"
        : message;
  }

  private static String describeOnly(Throwable failure) {
    if (failure instanceof StatusRuntimeException status) {
      return "service call failed: "
          + status.getStatus().getCode()
          + (status.getStatus().getDescription() == null
              ? ""
              : ": " + status.getStatus().getDescription());
    }
    return failure.getMessage() == null ? failure.getClass().getSimpleName() : failure.getMessage();
  }

  /**
   * Whether the job folder holds every cell of the plan and every candidate set its work writes (a
   * run of it would compute nothing).
   */
  static boolean holdsEverything(Path directory, List<Work> plan) {
    ResultStore store = ResultStore.open(directory);
    Path candidates = directory.resolve("candidates");
    for (Work work : plan) {
      if (!missingCells(work, store).isEmpty() || artifactsMissing(work, candidates)) {
        return false;
      }
    }
    return true;
  }

  /** Whether {@code work} writes candidate sets and one of them is not in {@code candidates}. */
  private static boolean artifactsMissing(Work work, Path candidates) {
    return work.kind().writesArtifacts()
        && work.artifacts().stream()
            .anyMatch(fp -> !Files.isRegularFile(WorkRunner.candidateFile(candidates, fp)));
  }

  /** Writes job.json: the spec, the versions, and every cell of the plan with its fingerprint. */
  private void writePlan(JobSpec spec, List<Work> plan) throws IOException {
    ObjectNode root = ResultStore.JSON.createObjectNode();
    root.put("name", spec.name());
    root.put(
        "spec_file",
        Files.isRegularFile(spec.file())
            ? spec.file().toAbsolutePath().toString()
            : spec.file().toString());
    root.put("tenbin_version", TenbinVersion.get());
    root.put("planned_at", Instant.now().toString());
    ArrayNode cells = root.putArray("cells");
    for (Work work : plan) {
      for (PlannedCell cell : work.cells()) {
        ObjectNode node = cells.addObject();
        node.put("fingerprint", cell.fingerprint());
        node.put("label", cell.key().label());
        node.put("work", work.label());
      }
      for (String artifact : work.artifacts()) {
        if (work.kind().writesArtifacts()) {
          ObjectNode node = root.withArray("candidate_sets").addObject();
          node.put("fingerprint", artifact);
          node.put("work", work.label());
        }
      }
    }
    // The shards of a job write the same plan at the same time (JobFiles.replace).
    JobFiles.replace(
        directory.resolve("job.json"),
        ResultStore.JSON.writerWithDefaultPrettyPrinter().writeValueAsString(root));
    // The spec as it was parsed (never a copy of a file named by a client).
    JobFiles.replace(directory.resolve("job.yaml"), spec.yaml());
  }

  private synchronized void event(String type, Work work, String detail) {
    ObjectNode event = ResultStore.JSON.createObjectNode();
    event.put("at", Instant.now().toString());
    event.put("event", type);
    if (work != null) {
      event.put("work", work.label());
    }
    event.put("detail", detail);
    try {
      Files.writeString(
          events,
          event + "\n",
          StandardCharsets.UTF_8,
          StandardOpenOption.CREATE,
          StandardOpenOption.APPEND);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot append to " + events, e);
    }
  }
}
