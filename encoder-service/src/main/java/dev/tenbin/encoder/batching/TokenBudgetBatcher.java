package dev.tenbin.encoder.batching;

import dev.tenbin.core.Cancellation;
import dev.tenbin.core.CancelledException;
import dev.tenbin.core.OverloadedException;
import dev.tenbin.core.UnavailableException;
import dev.tenbin.model.onnx.OnnxModel;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Function;
import java.util.function.IntConsumer;

/**
 * Dynamic batching across concurrent requests under a token budget. Waiting inputs are sorted by
 * length and cut into forward passes whose padded size (inputs × longest) stays under {@code
 * maxBatchTokens} and whose attention size (inputs × longest²) stays under {@code
 * maxBatchAttention}, so short inputs are not padded to long ones and long-context inputs (8K
 * tokens) do not share a pass whose attention would not fit in memory. The first waiting input
 * waits at most {@code maxQueueDelay} for company. One worker thread per batcher runs the passes;
 * ONNX Runtime parallelises inside.
 *
 * <p>Admission is bounded: a request first {@linkplain #reserve reserves} its places (before it is
 * tokenized), and places reserved plus inputs waiting never exceed {@code maxQueuedInputs} —
 * beyond, {@link OverloadedException}. The inputs of a cancelled or expired request leave the queue
 * within 20 ms (their places free for others) and are not computed; cancellation takes effect
 * between passes, never inside one.
 *
 * <p>{@link #close()} stops taking work, fails waiting requests with {@link UnavailableException},
 * lets the pass in flight finish and joins the worker: when it returns no thread of this batcher
 * runs native code.
 *
 * <p>A request's inputs enter the queue together, so a request alone in the queue is batched the
 * same way every time (deterministic vectors for the evaluation path).
 *
 * @param <R> what is extracted per input from a pass's output (a pooled vector, token vectors)
 */
public final class TokenBudgetBatcher<R> implements AutoCloseable {
  /** Extracts one input's result from a pass: (output, index in the pass, tokens of the input). */
  @FunctionalInterface
  public interface Extractor<R> {
    R extract(OnnxModel.Output output, int batchIndex, int tokens);
  }

  private static final Duration JOIN_WARNING = Duration.ofSeconds(30);

  private final String name;
  private final Function<long[][], OnnxModel.Output> forward;
  private final Extractor<R> extractor;
  private final BatchingLimits limits;
  private final IntConsumer passTokens;
  private final ReentrantLock lock = new ReentrantLock();
  private final Condition arrived = lock.newCondition();
  private final ArrayDeque<Pending<R>> queue = new ArrayDeque<>();
  private final Thread worker;
  private int reserved;
  private volatile int running;

  /** Forward-pass time per input, moving average over recent passes (0 until the first pass). */
  private volatile double nanosPerInput;

  private volatile boolean closed;

  private static final class Request<R> {
    final List<R> results;
    final Cancellation cancellation;
    final CompletableFuture<List<R>> done = new CompletableFuture<>();
    final Map<Object, Boolean> passes = new IdentityHashMap<>();
    int remaining;
    long queueNanos;
    long inferenceNanos;
    long paddedTokens;

    Request(int size, Cancellation cancellation) {
      this.results = new ArrayList<>(Collections.nCopies(size, null));
      this.remaining = size;
      this.cancellation = cancellation;
    }
  }

  private record Pending<R>(Request<R> request, int index, long[] ids, long enqueuedAt) {}

  /**
   * Places held in the queue for a request that is still being tokenized. Closing it gives back the
   * places not used by {@link #submit(Reservation, long[][], Cancellation)}.
   */
  public final class Reservation implements AutoCloseable {
    private int places;

    private Reservation(int places) {
      this.places = places;
    }

    /** Places still held. */
    public int places() {
      return places;
    }

    @Override
    public void close() {
      if (places > 0) {
        lock.lock();
        try {
          reserved -= places;
          places = 0;
        } finally {
          lock.unlock();
        }
      }
    }
  }

  public TokenBudgetBatcher(
      String name,
      Function<long[][], OnnxModel.Output> forward,
      Extractor<R> extractor,
      BatchingLimits limits) {
    this(name, forward, extractor, limits, tokens -> {});
  }

  /**
   * @param passTokens told the padded tokens of every forward pass (metrics)
   */
  public TokenBudgetBatcher(
      String name,
      Function<long[][], OnnxModel.Output> forward,
      Extractor<R> extractor,
      BatchingLimits limits,
      IntConsumer passTokens) {
    this.name = name;
    this.forward = forward;
    this.extractor = extractor;
    this.limits = limits;
    this.passTokens = passTokens;
    // A daemon so that a JVM whose owner forgot to close it can still end; close() and the
    // process's ordered shutdown join it.
    this.worker = Thread.ofPlatform().name("batcher-" + name).daemon().start(this::work);
  }

  /**
   * Reserves {@code inputs} places for a request about to be tokenized.
   *
   * @throws OverloadedException when waiting and reserved inputs would exceed the queue bound
   * @throws UnavailableException when the batcher is closed
   */
  public Reservation reserve(int inputs) {
    return reserve(inputs, 0);
  }

  /**
   * As {@link #reserve(int)}, for a request whose call has already waited {@code waitedNanos}
   * (since it arrived, for a handler thread): {@code maxQueueWait} bounds that wait and the wait
   * expected here together, so a call that waited long for a thread is refused rather than queued
   * behind more work.
   *
   * @throws OverloadedException when waiting and reserved inputs would exceed the queue bound, or
   *     the call's wait so far plus the work ahead would exceed {@code maxQueueWait}
   */
  public Reservation reserve(int inputs, long waitedNanos) {
    lock.lock();
    try {
      if (closed) {
        throw unavailable();
      }
      int ahead = queue.size() + reserved + running;
      long expectedWait = (long) (ahead * nanosPerInput);
      long waited = Math.max(0, waitedNanos);
      if (queue.size() + reserved + inputs > limits.maxQueuedInputs()) {
        throw new OverloadedException(
            "the encoder queue is full ("
                + (queue.size() + reserved)
                + " inputs waiting or being tokenized, limit "
                + limits.maxQueuedInputs()
                + "); retry later",
            retryAfter(expectedWait));
      }
      long maxWait = limits.maxQueueWait().toNanos();
      if (maxWait > 0 && waited + expectedWait > maxWait) {
        throw new OverloadedException(
            "the encoder is busy: this call waited "
                + Duration.ofNanos(waited).toMillis()
                + " ms for a handler thread and the "
                + ahead
                + " inputs ahead would take about "
                + Duration.ofNanos(expectedWait).toMillis()
                + " ms more, over the "
                + limits.maxQueueWait().toSeconds()
                + " s limit on waiting; retry later",
            retryAfter(waited + expectedWait - maxWait));
      }
      reserved += inputs;
      return new Reservation(inputs);
    } finally {
      lock.unlock();
    }
  }

  /** A retry delay of about the time the work ahead needs: at least 1 s, at most 60 s. */
  private static Duration retryAfter(long nanos) {
    return Duration.ofSeconds(Math.clamp(TimeUnit.NANOSECONDS.toSeconds(nanos) + 1, 1, 60));
  }

  /** Queues the inputs of one request and waits for their results, in input order. */
  public Served<R> submit(long[][] inputs, Cancellation cancellation) {
    try (Reservation reservation = reserve(inputs.length)) {
      return submit(reservation, inputs, cancellation);
    }
  }

  /**
   * Queues the tokenized inputs of a request into the places it reserved and waits for their
   * results, in input order.
   */
  public Served<R> submit(Reservation reservation, long[][] inputs, Cancellation cancellation) {
    if (inputs.length > reservation.places) {
      throw new IllegalArgumentException(
          inputs.length + " inputs for " + reservation.places + " reserved places");
    }
    Request<R> request = new Request<>(inputs.length, cancellation);
    if (inputs.length == 0) {
      return new Served<>(List.of(), new BatchTimings(0, 0, 0, 0));
    }
    lock.lock();
    try {
      if (closed) {
        throw unavailable();
      }
      reserved -= inputs.length;
      reservation.places -= inputs.length;
      long now = System.nanoTime();
      for (int i = 0; i < inputs.length; i++) {
        queue.add(new Pending<>(request, i, inputs[i], now));
      }
      arrived.signal();
    } finally {
      lock.unlock();
    }
    try {
      while (true) {
        try {
          List<R> results = request.done.get(20, TimeUnit.MILLISECONDS);
          synchronized (request) {
            return new Served<>(
                results,
                new BatchTimings(
                    request.queueNanos,
                    request.inferenceNanos,
                    request.paddedTokens,
                    request.passes.size()));
          }
        } catch (TimeoutException waiting) {
          if (cancellation.isCancelled()) {
            withdraw(request);
          }
        }
      }
    } catch (InterruptedException e) {
      withdraw(request);
      Thread.currentThread().interrupt();
      throw new CancelledException("interrupted while waiting for the encoder");
    } catch (ExecutionException e) {
      if (e.getCause() instanceof RuntimeException runtime) {
        throw runtime;
      }
      throw new IllegalStateException(e.getCause());
    }
  }

  /** A cancelled or expired request leaves the queue at once, giving its places back. */
  private void withdraw(Request<R> request) {
    lock.lock();
    try {
      queue.removeIf(pending -> pending.request() == request);
    } finally {
      lock.unlock();
    }
    request.done.completeExceptionally(
        new CancelledException("the call was cancelled or its deadline passed"));
  }

  /** Results in input order and what serving them cost. */
  public record Served<R>(List<R> results, BatchTimings timings) {}

  /** Inputs waiting now (tokenized, not yet in a pass). */
  public int queued() {
    lock.lock();
    try {
      return queue.size();
    } finally {
      lock.unlock();
    }
  }

  /** Places reserved by requests still being tokenized. */
  public int reserved() {
    lock.lock();
    try {
      return reserved;
    } finally {
      lock.unlock();
    }
  }

  /** Inputs in the forward pass running now. */
  public int running() {
    return running;
  }

  private void work() {
    while (true) {
      List<Pending<R>> drained;
      lock.lock();
      try {
        while (queue.isEmpty() && !closed) {
          arrived.await();
        }
        if (closed) {
          return;
        }
        long deadline = queue.peek().enqueuedAt() + limits.maxQueueDelay().toNanos();
        while (queuedTokens() < limits.maxBatchTokens() && !closed) {
          long wait = deadline - System.nanoTime();
          if (wait <= 0) {
            break;
          }
          arrived.awaitNanos(wait);
        }
        if (closed) {
          return;
        }
        drained = new ArrayList<>(queue);
        queue.clear();
      } catch (InterruptedException e) {
        return;
      } finally {
        lock.unlock();
      }
      runAll(drained);
    }
  }

  private long queuedTokens() {
    long tokens = 0;
    for (Pending<R> pending : queue) {
      tokens += pending.ids().length;
    }
    return tokens;
  }

  private void runAll(List<Pending<R>> drained) {
    List<Pending<R>> live = new ArrayList<>(drained.size());
    for (Pending<R> pending : drained) {
      if (!pending.request().done.isDone() && !pending.request().cancellation.isCancelled()) {
        live.add(pending);
      }
    }
    live.sort(Comparator.comparingInt((Pending<R> p) -> p.ids().length));
    int from = 0;
    while (from < live.size()) {
      if (closed) {
        // Closing takes effect between passes: what has not run yet is refused, not computed.
        UnavailableException refusal = unavailable();
        live.subList(from, live.size())
            .forEach(pending -> pending.request().done.completeExceptionally(refusal));
        return;
      }
      int to = from;
      int longest = 0;
      while (to < live.size() && to - from < limits.maxBatchSize()) {
        int candidateLongest = Math.max(longest, live.get(to).ids().length);
        if (to > from && !limits.fits(to - from + 1, candidateLongest)) {
          break;
        }
        longest = candidateLongest;
        to++;
      }
      runPass(live.subList(from, to), longest);
      from = to;
    }
  }

  private void runPass(List<Pending<R>> pass, int longest) {
    List<Pending<R>> active = new ArrayList<>(pass.size());
    for (Pending<R> pending : pass) {
      if (!pending.request().done.isDone()) {
        active.add(pending);
      }
    }
    if (active.isEmpty()) {
      return;
    }
    long[][] ids = new long[active.size()][];
    for (int i = 0; i < ids.length; i++) {
      ids[i] = active.get(i).ids();
    }
    long start = System.nanoTime();
    OnnxModel.Output output;
    running = active.size();
    try {
      output = forward.apply(ids);
    } catch (RuntimeException | Error failure) {
      // The worker survives a failed pass; its requests fail, the others go on.
      for (Pending<R> pending : active) {
        pending.request().done.completeExceptionally(failure);
      }
      return;
    } finally {
      running = 0;
    }
    long inference = System.nanoTime() - start;
    double perInput = (double) inference / active.size();
    nanosPerInput = nanosPerInput == 0 ? perInput : 0.8 * nanosPerInput + 0.2 * perInput;
    passTokens.accept(longest * active.size());
    Object passKey = new Object();
    for (int i = 0; i < active.size(); i++) {
      Pending<R> pending = active.get(i);
      Request<R> request = pending.request();
      R result;
      try {
        result = extractor.extract(output, i, pending.ids().length);
      } catch (RuntimeException failure) {
        request.done.completeExceptionally(failure);
        continue;
      }
      synchronized (request) {
        request.results.set(pending.index(), result);
        request.queueNanos = Math.max(request.queueNanos, start - pending.enqueuedAt());
        if (request.passes.put(passKey, Boolean.TRUE) == null) {
          request.inferenceNanos += inference;
          request.paddedTokens += (long) longest * active.size();
        }
        if (--request.remaining == 0) {
          request.done.complete(request.results);
        }
      }
    }
  }

  private UnavailableException unavailable() {
    return new UnavailableException(
        "the encoder " + name + " is closing (model unloaded or service shutting down); retry");
  }

  /**
   * Stops taking work, fails waiting requests with UNAVAILABLE, lets the pass in flight finish and
   * joins the worker.
   */
  @Override
  public void close() {
    lock.lock();
    try {
      if (!closed) {
        closed = true;
        UnavailableException refusal = unavailable();
        for (Pending<R> pending : queue) {
          pending.request().done.completeExceptionally(refusal);
        }
        queue.clear();
      }
      arrived.signalAll();
    } finally {
      lock.unlock();
    }
    if (Thread.currentThread() == worker) {
      return;
    }
    boolean interrupted = false;
    while (worker.isAlive()) {
      try {
        if (!worker.join(JOIN_WARNING)) {
          org.slf4j.LoggerFactory.getLogger(TokenBudgetBatcher.class)
              .warn("batcher {} is still finishing its forward pass after {}", name, JOIN_WARNING);
        }
      } catch (InterruptedException e) {
        interrupted = true;
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
  }
}
