package dev.tenbin.bench.setup;

import java.io.IOException;
import java.io.InputStream;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.Arrays;

/**
 * Runs another main class, and stops this process (as SIGTERM would: shutdown hooks run, so a
 * service stops in order) once its standard input reaches its end. A bench starts each service it
 * measures through this class with a pipe as the service's standard input and never writes to it:
 * the pipe ends when the bench's process does, however it ends, {@code kill -9} included, so no
 * service outlives the bench that started it.
 *
 * <p>Usage: {@code java -cp … dev.tenbin.bench.setup.ExitWithParent MAIN_CLASS ARGS…}
 */
public final class ExitWithParent {
  /** The exit status of a process stopped by SIGTERM, which this stop stands for. */
  static final int STOPPED = 143;

  private ExitWithParent() {}

  public static void main(String[] args) throws Throwable {
    if (args.length == 0) {
      System.err.println("usage: ExitWithParent MAIN_CLASS [ARGS...]");
      System.exit(2);
    }
    Thread watcher = new Thread(() -> stopAtEndOf(System.in), "exit-with-parent");
    watcher.setDaemon(true);
    watcher.start();
    MethodHandle main =
        MethodHandles.publicLookup()
            .findStatic(
                Class.forName(args[0]), "main", MethodType.methodType(void.class, String[].class));
    main.invoke((Object) Arrays.copyOfRange(args, 1, args.length));
  }

  private static void stopAtEndOf(InputStream input) {
    byte[] ignored = new byte[256];
    try {
      while (input.read(ignored) >= 0) {
        // Nothing is ever written; read until the writer's end closes.
      }
    } catch (IOException e) {
      // A broken pipe ends it the same way.
    }
    System.err.println("the process that started this one has ended: stopping");
    System.exit(STOPPED);
  }
}
