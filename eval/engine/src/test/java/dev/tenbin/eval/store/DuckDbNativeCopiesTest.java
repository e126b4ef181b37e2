package dev.tenbin.eval.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.sql.Connection;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * DuckDB's native library, which its driver unpacks into the temporary folder at every start: no
 * copy is left behind by a process killed with SIGKILL, however often, and copies left by older
 * processes go at the next start.
 */
class DuckDbNativeCopiesTest {
  @TempDir Path tmp;

  /** A child JVM: opens DuckDB as cells are written, says so, and waits to be killed. */
  public static void main(String[] args) throws Exception {
    try (Connection connection = CellColumns.connect()) {
      System.out.println("open");
      System.out.flush();
      Thread.sleep(120_000);
    }
  }

  private static List<String> copies(Path folder) throws Exception {
    try (Stream<Path> files = Files.list(folder)) {
      return files
          .map(p -> p.getFileName().toString())
          .filter(n -> n.startsWith("libduckdb_java"))
          .toList();
    }
  }

  @Test
  void processesKilledWithSigkillLeaveNoCopyOfTheNativeLibrary() throws Exception {
    assumeTrue(Files.isReadable(Path.of("/proc/self/maps")), "Linux only");
    Path temporary = Files.createDirectories(tmp.resolve("java-tmp"));
    String java =
        ProcessHandle.current()
            .info()
            .command()
            .orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    for (int start = 0; start < 3; start++) {
      Process child =
          new ProcessBuilder(
                  java,
                  "-Djava.io.tmpdir=" + temporary,
                  "-cp",
                  System.getProperty("java.class.path"),
                  DuckDbNativeCopiesTest.class.getName())
              .redirectErrorStream(true)
              .start();
      try (BufferedReader out =
          new BufferedReader(
              new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
        String line;
        do {
          line = out.readLine();
        } while (line != null && !line.equals("open"));
        assertThat(line).as("the child opened DuckDB").isEqualTo("open");
      } finally {
        child.destroyForcibly(); // SIGKILL: no exit hooks, no deleteOnExit
        child.waitFor(30, TimeUnit.SECONDS);
      }
    }
    assertThat(copies(temporary)).isEmpty();
  }

  @Test
  void copiesLeftByEarlierProcessesGoAndFreshOnesStay() throws Exception {
    Path old = Files.write(tmp.resolve("libduckdb_java1234.so"), new byte[] {1});
    Path fresh = Files.write(tmp.resolve("libduckdb_java5678.so"), new byte[] {2});
    Path notOurs = Files.write(tmp.resolve("libduckdb_java-notes.so.txt"), new byte[] {3});
    FileTime tenMinutesAgo = FileTime.from(Instant.now().minusSeconds(600));
    Files.setLastModifiedTime(old, tenMinutesAgo);
    Files.setLastModifiedTime(notOurs, tenMinutesAgo);

    assertThat(DuckDbConnections.removeLeftovers(tmp, Instant.now())).isEqualTo(1);
    assertThat(old).doesNotExist();
    assertThat(fresh).exists();
    assertThat(notOurs).exists();
  }

  @Test
  void theCopyThisProcessHasLoadedIsRemovedAtOnce() throws Exception {
    Path loaded = Files.write(tmp.resolve("libduckdb_java42.so"), new byte[] {1});
    Path elsewhere = Files.createDirectories(tmp.resolve("elsewhere"));
    Path other = Files.write(elsewhere.resolve("libduckdb_java43.so"), new byte[] {1});
    Path maps =
        Files.writeString(
            tmp.resolve("maps"),
            "7f00-7f10 r-xp 00000000 08:01 1234 "
                + loaded
                + "\n7f10-7f20 r--p 00010000 08:01 1234 "
                + loaded
                + "\n7f20-7f30 r-xp 00000000 08:01 99 "
                + other
                + "\n7f30-7f40 rw-p 00000000 00:00 0 [heap]\n");
    assertThat(DuckDbConnections.removeLoadedCopies(tmp, maps)).containsExactly(loaded);
    assertThat(loaded).doesNotExist();
    assertThat(other).exists();
  }
}
