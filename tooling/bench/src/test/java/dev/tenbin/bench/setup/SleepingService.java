package dev.tenbin.bench.setup;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Stands in for a service in {@link ExitWithParentTest}: once its shutdown hook is in place it
 * writes {@code FOLDER/ready}, then sleeps until stopped; the hook writes {@code FOLDER/stopped}.
 */
public final class SleepingService {
  private SleepingService() {}

  public static void main(String[] args) throws Exception {
    Path folder = Path.of(args[0]);
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  try {
                    Files.writeString(folder.resolve("stopped"), "stopped in order\n");
                  } catch (java.io.IOException e) {
                    throw new java.io.UncheckedIOException(e);
                  }
                }));
    // Written whole, then moved into place: a test that sees "ready" reads the whole pid.
    Path written =
        Files.writeString(folder.resolve("ready.tmp"), ProcessHandle.current().pid() + "\n");
    Files.move(written, folder.resolve("ready"), java.nio.file.StandardCopyOption.ATOMIC_MOVE);
    Thread.sleep(Long.MAX_VALUE);
  }
}
