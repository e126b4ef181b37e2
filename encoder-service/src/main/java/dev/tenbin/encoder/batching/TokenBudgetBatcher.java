package dev.tenbin.encoder.batching;

import dev.tenbin.core.Cancellation;
import dev.tenbin.core.CancelledException;
import dev.tenbin.core.OverloadedException;
import dev.tenbin.encoder.onnx.OnnxModel;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Function;

/**
 * Dynamic batching across concurrent requests under a token budget. Waiting inputs are sorted by
 * length and cut into forward passes whose padded size (inputs × longest) stays under
 * {@code maxBatchTokens}, so short inputs are not padded to long ones. The queue is bounded (a
 * full queue refuses with {@link OverloadedException}), the first waiting input waits at most
 * {@code maxQueueDelay} for company, and the inputs of a cancelled or expired request leave the
 * queue within 20 ms (their places free for others) and are not computed. One worker thread per
 * model runs the passes; ONNX Runtime parallelises inside.
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

  private final Function<long[][], OnnxModel.Output> forward;
  private final Extractor<R> extractor;
  private final BatchingLimits limits;
  private final ReentrantLock lock = new ReentrantLock();
  private final Condition arrived = lock.newCondition();
  private final ArrayDeque<Pending<R>> queue = new ArrayDeque<>();
  private final Thread worker;
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
      this.results = new ArrayList<>(java.util.Collections.nCopies(size, null));
      this.remaining = size;
      this.cancellation = cancellation;
    }
  }

  private record Pending<R>(Request<R> request, int index, long[] ids, long enqueuedAt) {}

  public TokenBudgetBatcher(
      String name, Function<long[][], OnnxModel.Output> forward, Extractor<R> extractor, BatchingLimits limits) {
    this.forward = forward;
    this.extractor = extractor;
    this.limits = limits;
    this.worker = Thread.ofPlatform().name("batcher-" + name).daemon().start(this::work);
  }

  /** Queues the inputs of one request and waits for their results, in input order. */
  public Served<R> submit(long[][] inputs, Cancellation cancellation) {
    Request<R> request = new Request<>(inputs.length, cancellation);
    if (inputs.length == 0) {
      return new Served<>(List.of(), new BatchTimings(0, 0, 0, 0));
    }
    lock.lock();
    try {
      if (closed) {
        throw new IllegalStateException("the batcher is closed");
      }
      if (queue.size() + inputs.length > limits.maxQueuedInputs()) {
        throw new OverloadedException(
            "the encoder queue is full (" + queue.size() + " inputs waiting, limit "
                + limits.maxQueuedInputs() + "); retry later");
      }
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
                new BatchTimings(request.queueNanos, request.inferenceNanos, request.paddedTokens, request.passes.size()));
          }
        } catch (java.util.concurrent.TimeoutException waiting) {
          if (cancellation.isCancelled()) {
            withdraw(request);
          }
        }
      }
    } catch (InterruptedException e) {
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
    request.done.completeExceptionally(new CancelledException("the call was cancelled or its deadline passed"));
  }

  /** Results in input order and what serving them cost. */
  public record Served<R>(List<R> results, BatchTimings timings) {}

  /** Inputs waiting now. */
  public int queued() {
    lock.lock();
    try {
      return queue.size();
    } finally {
      lock.unlock();
    }
  }

  private void work() {
    while (!closed) {
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
      int to = from;
      int longest = 0;
      while (to < live.size() && to - from < limits.maxBatchSize()) {
        int candidateLongest = Math.max(longest, live.get(to).ids().length);
        if (to > from && (long) candidateLongest * (to - from + 1) > limits.maxBatchTokens()) {
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
    try {
      output = forward.apply(ids);
    } catch (RuntimeException failure) {
      for (Pending<R> pending : active) {
        pending.request().done.completeExceptionally(failure);
      }
      return;
    }
    long inference = System.nanoTime() - start;
    Object passKey = new Object();
    for (int i = 0; i < active.size(); i++) {
      Pending<R> pending = active.get(i);
      R result = extractor.extract(output, i, pending.ids().length);
      Request<R> request = pending.request();
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

  @Override
  public void close() {
    lock.lock();
    try {
      closed = true;
      arrived.signalAll();
      for (Pending<R> pending : queue) {
        pending.request().done.completeExceptionally(new IllegalStateException("the encoder is shutting down"));
      }
      queue.clear();
    } finally {
      lock.unlock();
    }
  }
}
