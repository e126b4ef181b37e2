package dev.tenbin.eval.services;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The embedded index's temporary folders: each names its owner process, and a folder whose owner is
 * gone (killed before it could remove it) is removed by the next process that makes one.
 */
class TemporaryIndexFolderTest {
  @TempDir Path tmp;

  @Test
  void foldersOfProcessesThatAreGoneAreRemovedAndTheOthersKept() throws Exception {
    Path abandoned = Files.createDirectory(tmp.resolve("tenbin-index-1"));
    Files.writeString(abandoned.resolve(Services.OWNER_FILE), Long.toString(deadPid()));
    Files.writeString(abandoned.resolve("segments_1"), "index data");
    Path mine = Files.createDirectory(tmp.resolve("tenbin-index-2"));
    Files.writeString(
        mine.resolve(Services.OWNER_FILE), Long.toString(ProcessHandle.current().pid()));
    Path unmarked = Files.createDirectory(tmp.resolve("tenbin-index-3"));
    Path other = Files.createDirectory(tmp.resolve("something-else"));

    Services.removeAbandoned(tmp);

    assertThat(abandoned).doesNotExist();
    assertThat(mine).exists();
    assertThat(unmarked).exists();
    assertThat(other).exists();
  }

  /** The id of a process that has ended: a child started and waited for. */
  private static long deadPid() throws Exception {
    Process process = new ProcessBuilder("true").start();
    process.waitFor();
    return process.pid();
  }
}
