package dev.tenbin.rpc;

import java.util.concurrent.Executor;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A fixed pool of named daemon threads that runs a server's calls instead of gRPC's unbounded
 * cached pool; calls beyond the thread count wait in its queue. Closed after the server has
 * terminated: running handlers get a few seconds, then are interrupted.
 */
final class HandlerPool implements Executor, AutoCloseable {
  private static final long CLOSE_WAIT_SECONDS = 5;

  private final ThreadPoolExecutor threads;

  HandlerPool(int size, String threadPrefix) {
    this.threads =
        new ThreadPoolExecutor(
            size, size, 0, TimeUnit.MILLISECONDS, new LinkedBlockingQueue<>(), named(threadPrefix));
  }

  @Override
  public void execute(Runnable command) {
    threads.execute(command);
  }

  /** Tasks waiting for a thread. */
  int queued() {
    return threads.getQueue().size();
  }

  @Override
  public void close() {
    threads.shutdown();
    try {
      if (!threads.awaitTermination(CLOSE_WAIT_SECONDS, TimeUnit.SECONDS)) {
        threads.shutdownNow();
        threads.awaitTermination(CLOSE_WAIT_SECONDS, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      threads.shutdownNow();
      Thread.currentThread().interrupt();
    }
  }

  static ThreadFactory named(String prefix) {
    AtomicInteger count = new AtomicInteger();
    return runnable -> {
      Thread thread = new Thread(runnable, prefix + count.incrementAndGet());
      thread.setDaemon(true);
      return thread;
    };
  }
}
