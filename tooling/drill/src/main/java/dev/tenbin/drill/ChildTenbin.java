package dev.tenbin.drill;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A {@code tenbin} command running in its own JVM, started by a drill: same Java, same class path
 * and the same module/native-access flags as this JVM, its output in a log file, and a crash file
 * location of its own, so a drill can tell a clean exit from a native crash (an {@code hs_err}
 * file, exit code 134 or 139, or the JVM's "A fatal error has been detected" banner).
 */
public final class ChildTenbin implements AutoCloseable {
  private static final Pattern LISTENING = Pattern.compile("listening on (\\S+):(\\d+)");

  /**
   * Exit codes of a JVM that died of a signal it did not handle (SIGABRT after a crash, SIGSEGV).
   */
  private static final List<Integer> CRASH_EXIT_CODES = List.of(134, 139);

  private final String name;
  private final Path log;
  private final Path crashDirectory;
  private final Process process;
  private long peakRssKb;

  private ChildTenbin(String name, Path log, Path crashDirectory, Process process) {
    this.name = name;
    this.log = log;
    this.crashDirectory = crashDirectory;
    this.process = process;
  }

  /**
   * Starts {@code tenbin ARGS...} with its output (stdout and stderr) in {@code
   * workDirectory/NAME.log}.
   */
  public static ChildTenbin start(Path workDirectory, String name, List<String> args) {
    return start(workDirectory, name, List.of(), args);
  }

  /** As {@link #start(Path, String, List)}, with extra JVM flags (e.g. {@code -Xmx1g}). */
  public static ChildTenbin start(
      Path workDirectory, String name, List<String> jvmFlags, List<String> args) {
    try {
      Files.createDirectories(workDirectory);
      Path crashes = Files.createDirectories(workDirectory.resolve(name + "-crash"));
      Path log = workDirectory.resolve(name + ".log");
      List<String> command = new ArrayList<>();
      command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
      command.addAll(inheritedJvmFlags());
      command.addAll(jvmFlags);
      command.add("-XX:ErrorFile=" + crashes.resolve("hs_err_pid%p.log"));
      command.add("-cp");
      command.add(System.getProperty("java.class.path"));
      command.add("dev.tenbin.eval.cli.TenbinCli");
      command.addAll(args);
      Process process =
          new ProcessBuilder(command)
              .redirectErrorStream(true)
              .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
              .directory(workDirectory.toFile())
              .start();
      return new ChildTenbin(name, log, crashes, process);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start a child tenbin process for " + name, e);
    }
  }

  /**
   * The flags of this JVM a child needs to behave the same (modules, native access, stack, GC), not
   * {@code -Dtenbin.stderr.*} (the launcher's file descriptor for this process's stderr).
   */
  static List<String> inheritedJvmFlags() {
    List<String> flags = new ArrayList<>();
    List<String> mine = ManagementFactory.getRuntimeMXBean().getInputArguments();
    for (int i = 0; i < mine.size(); i++) {
      String flag = mine.get(i);
      if ((flag.equals("--add-modules")
              || flag.equals("--add-opens")
              || flag.equals("--add-exports"))
          && i + 1 < mine.size()) {
        flags.add(flag);
        flags.add(mine.get(++i));
      } else if (flag.startsWith("--add-modules=")
          || flag.startsWith("--add-opens=")
          || flag.startsWith("--enable-native-access")
          || flag.startsWith("-Xss")
          || flag.startsWith("-XX:+Use")
          || flag.startsWith("-Djava.util.logging")
          || (flag.startsWith("-Dtenbin.") && !flag.startsWith("-Dtenbin.stderr"))) {
        flags.add(flag);
      }
    }
    return flags;
  }

  public String name() {
    return name;
  }

  public long pid() {
    return process.pid();
  }

  public boolean isAlive() {
    return process.isAlive();
  }

  public Path log() {
    return log;
  }

  /** The child's output so far. */
  public String output() {
    try {
      return Files.exists(log) ? Files.readString(log, StandardCharsets.UTF_8) : "";
    } catch (IOException e) {
      return "";
    }
  }

  /**
   * Waits until the child's output matches {@code pattern}; empty when the child exits or the time
   * runs out first.
   */
  public Optional<Matcher> awaitOutput(Pattern pattern, Duration timeout)
      throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (System.nanoTime() < deadline) {
      Matcher matcher = pattern.matcher(output());
      if (matcher.find()) {
        return Optional.of(matcher);
      }
      if (!process.isAlive()) {
        matcher = pattern.matcher(output());
        return matcher.find() ? Optional.of(matcher) : Optional.empty();
      }
      samplePeakRss();
      Thread.sleep(10);
    }
    return Optional.empty();
  }

  /** The port a {@code tenbin serve ...} child reports in its "listening on HOST:PORT" line. */
  public int awaitListeningPort(Duration timeout) throws InterruptedException {
    Matcher matcher =
        awaitOutput(LISTENING, timeout)
            .orElseThrow(
                () ->
                    new IllegalStateException(
                        name + " did not start listening within " + timeout + ":\n" + tail()));
    return Integer.parseInt(matcher.group(2));
  }

  /** Records the child's peak resident set so far (Linux {@code VmHWM}); call while it runs. */
  public long samplePeakRss() {
    try {
      Path status = Path.of("/proc", Long.toString(process.pid()), "status");
      if (Files.isReadable(status)) {
        for (String line : Files.readAllLines(status)) {
          if (line.startsWith("VmHWM:")) {
            long kb = Long.parseLong(line.replaceAll("[^0-9]", ""));
            peakRssKb = Math.max(peakRssKb, kb);
          }
        }
      }
    } catch (IOException | RuntimeException e) {
      // The process ended between the check and the read; keep the last sample.
    }
    return peakRssKb;
  }

  public long peakRssKb() {
    return peakRssKb;
  }

  /** SIGTERM: the JVM runs its shutdown hooks. */
  public void terminate() {
    samplePeakRss();
    process.destroy();
  }

  /** SIGKILL: no shutdown hooks, no flushing. */
  public void kill() {
    samplePeakRss();
    process.destroyForcibly();
  }

  /** Waits for the exit; -1 when it is still running after {@code timeout}. */
  public int awaitExit(Duration timeout) throws InterruptedException {
    return process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS) ? process.exitValue() : -1;
  }

  /** Whether the child died of a native crash rather than exiting or being signalled by us. */
  public boolean crashed() {
    if (!process.isAlive() && CRASH_EXIT_CODES.contains(process.exitValue())) {
      return true;
    }
    try (var files = Files.list(crashDirectory)) {
      if (files.findAny().isPresent()) {
        return true;
      }
    } catch (IOException e) {
      // No crash folder, no crash file.
    }
    return output().contains("A fatal error has been detected");
  }

  /** The last lines of the child's output, for error messages. */
  public String tail() {
    String text = output();
    String[] lines = text.split("\n");
    int from = Math.max(0, lines.length - 15);
    return String.join("\n", java.util.Arrays.copyOfRange(lines, from, lines.length));
  }

  /** Stops the child if it still runs (SIGTERM, then SIGKILL after 20 s). */
  @Override
  public void close() {
    if (process.isAlive()) {
      process.destroy();
      try {
        if (!process.waitFor(20, TimeUnit.SECONDS)) {
          process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
      } catch (InterruptedException e) {
        process.destroyForcibly();
        Thread.currentThread().interrupt();
      }
    }
  }
}
