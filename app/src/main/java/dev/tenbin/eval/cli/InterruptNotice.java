package dev.tenbin.eval.cli;

import java.io.PrintWriter;
import java.util.function.Supplier;

/**
 * The line a long command prints when it is stopped by Ctrl-C (SIGINT) or SIGTERM: what was kept
 * and how to go on, instead of a silent exit. Registered as a JVM shutdown hook while the command
 * runs and removed when it ends normally, so a command that finishes prints nothing.
 */
final class InterruptNotice implements AutoCloseable {
  private final Thread hook;

  private InterruptNotice(Thread hook) {
    this.hook = hook;
  }

  /** Prints {@code "tenbin: interrupted; " + line.get()} to {@code err} if the JVM is stopped. */
  static InterruptNotice whileRunning(PrintWriter err, Supplier<String> line) {
    Thread hook =
        new Thread(
            () -> {
              err.println("tenbin: interrupted; " + line.get());
              err.flush();
            },
            "tenbin-interrupt-notice");
    Runtime.getRuntime().addShutdownHook(hook);
    return new InterruptNotice(hook);
  }

  @Override
  public void close() {
    try {
      Runtime.getRuntime().removeShutdownHook(hook);
    } catch (IllegalStateException shuttingDown) {
      // The JVM is already stopping: the hook runs (or ran) and prints the line.
    }
  }
}
