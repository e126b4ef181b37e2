package dev.tenbin.eval.cli;

import dev.tenbin.eval.shard.ChildJvm;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The command of a child JVM a test will kill with SIGKILL, its {@code java.io.tmpdir} a folder of
 * the test's own. A killed JVM runs no exit hooks, so what libraries unpack into the temporary
 * folder stays there (DuckDB's native library alone is 60 MB a process); inside the test's folder
 * it goes when the test's folder does, instead of piling up in the machine's.
 */
final class KilledChildJvm {
  private KilledChildJvm() {}

  /**
   * {@link ChildJvm#command} of {@code mainClass} with {@code <testFolder>/java-tmp} as its tmpdir.
   */
  static List<String> command(String mainClass, Path testFolder) throws IOException {
    Path temporary = Files.createDirectories(testFolder.resolve("java-tmp"));
    List<String> command = new ArrayList<>(ChildJvm.command(mainClass));
    // Before the class path's argument file and the main class, the last two entries.
    command.add(command.size() - 2, "-Djava.io.tmpdir=" + temporary);
    return command;
  }
}
