package dev.tenbin.eval.store;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.regex.Pattern;

/**
 * Opens DuckDB connections, and keeps DuckDB's native library from piling up in the temporary
 * folder.
 *
 * <p>DuckDB's JDBC driver unpacks its native library (60 MB) into {@code java.io.tmpdir} as {@code
 * libduckdb_java<random>.so} each time a process first uses it, and removes it only when the JVM
 * exits normally ({@code deleteOnExit}); it has no option for another folder or for reusing a copy.
 * Every process killed with SIGKILL (a {@code kill -9}, an OOM kill, a pod evicted) left its copy
 * behind. Here, once per process: the copies older than {@link #SETTLING} are removed before the
 * driver loads (on Linux and macOS a library stays usable by the processes that loaded it once its
 * file is gone; a copy that is still loaded cannot be removed on Windows and is left), and on Linux
 * the copy this process has just loaded is removed at once, so not even a SIGKILL leaves one. The
 * newest copies are left to the processes that may be unpacking them right now.
 */
public final class DuckDbConnections {
  /** How old a copy of the library must be before it is taken for a leftover. */
  static final Duration SETTLING = Duration.ofMinutes(1);

  /**
   * The names the driver gives its copies ({@code Files.createTempFile("libduckdb_java", ".so")}).
   */
  static final Pattern COPY = Pattern.compile("libduckdb_java[0-9]*\\.so");

  private static final Object LOCK = new Object();
  private static boolean prepared;

  private DuckDbConnections() {}

  /** {@code DriverManager.getConnection(url)} for a {@code jdbc:duckdb:} url. */
  public static Connection open(String url) throws SQLException {
    return open(url, new Properties());
  }

  /** {@code DriverManager.getConnection(url, properties)} for a {@code jdbc:duckdb:} url. */
  public static Connection open(String url, Properties properties) throws SQLException {
    synchronized (LOCK) {
      if (prepared) {
        return DriverManager.getConnection(url, properties);
      }
      Path temporary = Path.of(System.getProperty("java.io.tmpdir"));
      removeLeftovers(temporary, Instant.now());
      Connection connection = DriverManager.getConnection(url, properties);
      prepared = true;
      removeLoadedCopies(temporary, Path.of("/proc/self/maps"));
      return connection;
    }
  }

  /**
   * Removes the copies of the library in {@code folder} last modified before {@code now} minus
   * {@link #SETTLING}; returns how many. Best effort: a copy that cannot be removed is left.
   */
  static int removeLeftovers(Path folder, Instant now) {
    int removed = 0;
    try (DirectoryStream<Path> files = Files.newDirectoryStream(folder, "libduckdb_java*.so")) {
      for (Path file : files) {
        if (!COPY.matcher(file.getFileName().toString()).matches()) {
          continue;
        }
        try {
          BasicFileAttributes attributes =
              Files.readAttributes(file, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
          if (attributes.isRegularFile()
              && attributes.lastModifiedTime().toInstant().plus(SETTLING).isBefore(now)
              && Files.deleteIfExists(file)) {
            removed++;
          }
        } catch (IOException e) {
          // in use (Windows) or removed by another process meanwhile
        }
      }
    } catch (IOException e) {
      // no temporary folder to tidy
    }
    return removed;
  }

  /**
   * Removes the copies of the library in {@code folder} that this process has loaded, as {@code
   * maps} ({@code /proc/self/maps}) lists them; nothing where there is no such file (not Linux).
   */
  static List<Path> removeLoadedCopies(Path folder, Path maps) {
    List<Path> removed = new ArrayList<>();
    if (!Files.isReadable(maps)) {
      return removed;
    }
    try {
      Path real = folder.toRealPath();
      for (String line : Files.readAllLines(maps, StandardCharsets.UTF_8)) {
        int slash = line.indexOf('/');
        if (slash < 0) {
          continue;
        }
        Path mapped = Path.of(line.substring(slash));
        if (mapped.getParent() != null
            && (mapped.getParent().equals(real) || mapped.getParent().equals(folder))
            && COPY.matcher(mapped.getFileName().toString()).matches()
            && !removed.contains(mapped)
            && Files.deleteIfExists(mapped)) {
          removed.add(mapped);
        }
      }
    } catch (IOException | RuntimeException e) {
      // best effort: the copy goes at the next start instead
    }
    return removed;
  }
}
