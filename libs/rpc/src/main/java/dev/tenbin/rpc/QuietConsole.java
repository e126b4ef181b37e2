package dev.tenbin.rpc;

import java.io.BufferedOutputStream;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.lang.reflect.Field;
import java.util.ArrayList;
import java.util.List;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Keeps standard error for what a user or operator must act on: libraries' start-up chatter that is
 * logged at INFO through java.util.logging (Lucene's "Java vector incubator API enabled" line) is
 * raised to WARNING, so their real warnings and errors still show. {@code TENBIN_VERBOSE=1} leaves
 * everything as the libraries set it.
 *
 * <p>The JVM's own "Using incubator modules" banner is printed before any Java code runs, so the
 * {@code tenbin} launcher passes the JVM's standard error through a filter that drops that line,
 * and hands the real standard error over as well, as file descriptor 3 ({@code
 * -Dtenbin.stderr.fd=3}). {@link #apply()} points {@link System#err} at that very descriptor (not a
 * reopening of it: a second open file description would keep an offset of its own, and with {@code
 * > log 2>&1} the two would write over each other's lines), so what Java prints never waits behind
 * the filter and cannot arrive after the process has exited; native code still writes through the
 * filter.
 *
 * <p>It does so only when that descriptor is still the file the launcher saw ({@code
 * -Dtenbin.stderr.identity=DEVICE:INODE}): a JVM that merely copied the flags (a child process
 * started with this JVM's arguments) has some other file at fd 3 — its own first open file, such as
 * the JDK's {@code lib/modules} — and must never write to it. Wrapping a descriptor number needs
 * {@code --add-opens java.base/java.io} (the launcher passes it); without it standard error stays
 * the filtered one, and everything still arrives.
 */
public final class QuietConsole {
  /** java.util.logging loggers whose INFO lines are start-up chatter. */
  private static final List<String> CHATTY = List.of("org.apache.lucene.internal.vectorization");

  // java.util.logging keeps loggers weakly: hold them, or the level is lost with the logger.
  private static final List<Logger> QUIETED = new ArrayList<>();

  private QuietConsole() {}

  /** Whether {@code TENBIN_VERBOSE} asks for every log line. */
  public static boolean verbose() {
    String value = System.getenv("TENBIN_VERBOSE");
    return value != null
        && !value.isBlank()
        && !value.equals("0")
        && !value.equalsIgnoreCase("false");
  }

  /**
   * Takes the launcher's standard error, then quiets the chatty loggers unless {@link #verbose()};
   * call first thing in a main method.
   */
  public static synchronized void apply() {
    useLauncherStderr();
    if (verbose() || !QUIETED.isEmpty()) {
      return;
    }
    for (String name : CHATTY) {
      Logger logger = Logger.getLogger(name);
      logger.setLevel(Level.WARNING);
      QUIETED.add(logger);
    }
  }

  private static void useLauncherStderr() {
    String descriptor = System.getProperty("tenbin.stderr.fd");
    String identity = System.getProperty("tenbin.stderr.identity");
    System.clearProperty("tenbin.stderr.fd");
    System.clearProperty("tenbin.stderr.identity");
    if (descriptor == null || !descriptor.matches("\\d{1,4}")) {
      return;
    }
    if (!isFile("/proc/self/fd/" + descriptor, identity)) {
      return;
    }
    try {
      FileDescriptor inherited = new FileDescriptor();
      Field number = FileDescriptor.class.getDeclaredField("fd");
      number.setAccessible(true);
      number.setInt(inherited, Integer.parseInt(descriptor));
      System.setErr(
          new PrintStream(
              new BufferedOutputStream(new FileOutputStream(inherited), 8192),
              true,
              System.err.charset()));
    } catch (ReflectiveOperationException | RuntimeException e) {
      // Keep the filtered standard error: everything still arrives.
    }
  }

  /**
   * Whether {@code path} (followed through links) is the file {@code identity} ("DEVICE:INODE")
   * names.
   */
  static boolean isFile(String path, String identity) {
    if (identity == null || !identity.matches("\\d+:\\d+")) {
      return false;
    }
    try {
      java.util.Map<String, Object> attributes =
          java.nio.file.Files.readAttributes(java.nio.file.Path.of(path), "unix:dev,ino");
      return identity.equals(attributes.get("dev") + ":" + attributes.get("ino"));
    } catch (IOException | RuntimeException e) {
      return false;
    }
  }
}
