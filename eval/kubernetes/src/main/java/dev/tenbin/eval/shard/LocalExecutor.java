package dev.tenbin.eval.shard;

import dev.tenbin.core.Cancellation;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * {@code tenbin run --executor local --parallelism K}: runs the K shards of a job as K child
 * processes at once ({@code tenbin run SPEC --shard i/K}, same JVM and class path as this one),
 * streams their output line by line prefixed with the shard, and starts a shard that failed once
 * more. A shard that exits 2 (a bad spec or flag) is not retried: it would fail again. The caller
 * merges when every shard succeeded. Child processes are ended when the run is cancelled or this
 * process shuts down.
 */
public final class LocalExecutor {
  /** Exit code of a run that was refused as bad input (never retried). */
  public static final int EXIT_USAGE = 2;

  /**
   * How one shard's processes ended.
   *
   * @param shard the shard
   * @param attempts processes started for it (1, or 2 after a retry)
   * @param exitCode the last process's exit code (-1 when cancelled before it started)
   */
  public record ShardRun(Shard shard, int attempts, int exitCode) {
    public boolean succeeded() {
      return exitCode == 0;
    }
  }

  private final Function<Shard, List<String>> command;
  private final PrintWriter out;
  private final int retries;
  private final Set<Process> running = ConcurrentHashMap.newKeySet();

  /**
   * @param command the command line of a shard's process
   * @param out where the children's output goes, each line prefixed with {@code [shard i/K]}
   * @param retries how many times a failed shard is started again
   */
  public LocalExecutor(Function<Shard, List<String>> command, PrintWriter out, int retries) {
    this.command = command;
    this.out = out;
    this.retries = retries;
  }

  /** Runs shards 0..K-1 of K at once; returns how each ended, in shard order. */
  public List<ShardRun> run(int count, Cancellation cancellation) {
    Thread cleanup = new Thread(this::destroyAll, "tenbin-shard-cleanup");
    Runtime.getRuntime().addShutdownHook(cleanup);
    ExecutorService threads = Executors.newFixedThreadPool(count + 1);
    try {
      List<Future<ShardRun>> futures = new ArrayList<>();
      for (int i = 0; i < count; i++) {
        Shard shard = new Shard(i, count);
        futures.add(threads.submit(() -> runShard(shard, cancellation)));
      }
      Future<?> watcher =
          threads.submit(
              () -> {
                while (!Thread.currentThread().isInterrupted()) {
                  if (cancellation.isCancelled()) {
                    destroyAll();
                    return;
                  }
                  try {
                    Thread.sleep(200);
                  } catch (InterruptedException e) {
                    return;
                  }
                }
              });
      List<ShardRun> runs = new ArrayList<>();
      for (Future<ShardRun> future : futures) {
        runs.add(future.get());
      }
      watcher.cancel(true);
      return runs;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      destroyAll();
      throw new IllegalStateException("interrupted while the shards ran", e);
    } catch (ExecutionException e) {
      destroyAll();
      throw e.getCause() instanceof RuntimeException r ? r : new IllegalStateException(e);
    } finally {
      threads.shutdownNow();
      try {
        Runtime.getRuntime().removeShutdownHook(cleanup);
      } catch (IllegalStateException shuttingDown) {
        // The hook runs anyway.
      }
    }
  }

  private ShardRun runShard(Shard shard, Cancellation cancellation) {
    int exit = -1;
    int attempt = 0;
    while (attempt <= retries && !cancellation.isCancelled()) {
      attempt++;
      exit = start(shard, attempt);
      if (exit == 0 || exit == EXIT_USAGE || cancellation.isCancelled()) {
        break;
      }
      if (attempt <= retries) {
        print(shard, "exited " + exit + "; starting it again (attempt " + (attempt + 1) + ")");
      }
    }
    return new ShardRun(shard, attempt, exit);
  }

  private int start(Shard shard, int attempt) {
    List<String> line = command.apply(shard);
    Process process;
    try {
      process = new ProcessBuilder(line).redirectErrorStream(true).start();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start shard " + shard.label() + ": " + line, e);
    }
    running.add(process);
    print(shard, "started, pid " + process.pid() + (attempt > 1 ? ", attempt " + attempt : ""));
    try (BufferedReader reader =
        new BufferedReader(
            new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
      for (String text = reader.readLine(); text != null; text = reader.readLine()) {
        print(shard, text);
      }
    } catch (IOException e) {
      // The process went away; its exit code says how.
    }
    try {
      int exit = process.waitFor();
      print(shard, "exited " + exit);
      return exit;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      process.destroyForcibly();
      return -1;
    } finally {
      running.remove(process);
    }
  }

  private void print(Shard shard, String text) {
    synchronized (out) {
      out.println("[shard " + shard.label() + "] " + text);
      out.flush();
    }
  }

  /**
   * Ends every child still running and the processes it started: politely, then forcibly after 10
   * s.
   */
  private void destroyAll() {
    for (Process process : running) {
      process.descendants().forEach(ProcessHandle::destroy);
      process.destroy();
    }
    for (Process process : running) {
      try {
        if (!process.waitFor(10, TimeUnit.SECONDS)) {
          process.descendants().forEach(ProcessHandle::destroyForcibly);
          process.destroyForcibly();
        }
      } catch (InterruptedException e) {
        process.destroyForcibly();
        Thread.currentThread().interrupt();
      }
    }
  }
}
