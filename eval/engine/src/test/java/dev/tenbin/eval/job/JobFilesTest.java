package dev.tenbin.eval.job;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tenbin.core.InvalidInputException;
import dev.tenbin.core.NotFoundException;
import dev.tenbin.core.PermissionDeniedException;
import dev.tenbin.core.Sha256;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The files of a job's folder, as the eval service lists and serves them: nothing outside. */
class JobFilesTest {
  @TempDir Path tmp;
  private Path job;

  @BeforeEach
  void folder() throws Exception {
    job = Files.createDirectories(tmp.resolve("results/job"));
    Files.writeString(job.resolve("leaderboard.md"), "| rank |\n");
    Files.createDirectories(job.resolve("cells"));
    Files.writeString(job.resolve("cells/ab.cell.json"), "{\"x\": 1}");
    Files.writeString(job.resolve(".lock"), "");
    Files.writeString(tmp.resolve("secret.txt"), "not yours");
    Files.createSymbolicLink(job.resolve("escape.txt"), tmp.resolve("secret.txt"));
    Files.createSymbolicLink(job.resolve("outside"), tmp);
  }

  @Test
  void listsRegularFilesInPathOrderWithSizesAndDigestsButNoLocksOrLinks() {
    assertThat(JobFiles.list(job))
        .containsExactly(
            new JobFiles.JobFile("cells/ab.cell.json", 8, Sha256.hex("{\"x\": 1}")),
            new JobFiles.JobFile("leaderboard.md", 9, Sha256.hex("| rank |\n")));
    assertThat(JobFiles.list(tmp.resolve("no-such-job"))).isEmpty();
  }

  @Test
  void readsAFileFromAnOffset() throws Exception {
    try (InputStream in = JobFiles.open(job, "leaderboard.md", 2)) {
      assertThat(new String(in.readAllBytes(), StandardCharsets.UTF_8)).isEqualTo("rank |\n");
    }
    try (InputStream in = JobFiles.open(job, "cells/ab.cell.json", 8)) {
      assertThat(in.readAllBytes()).isEmpty();
    }
  }

  @Test
  void refusesEverythingThatIsNotARegularFileOfTheFolderNamingTheField() {
    for (String path :
        new String[] {"../secret.txt", "cells/../../secret.txt", "./leaderboard.md"}) {
      assertThatThrownBy(() -> JobFiles.open(job, path, 0))
          .as(path)
          .isInstanceOf(PermissionDeniedException.class)
          .hasMessageContaining("path");
    }
    for (String path : new String[] {"escape.txt", "outside/secret.txt", "cells"}) {
      assertThatThrownBy(() -> JobFiles.open(job, path, 0))
          .as(path)
          .isInstanceOf(PermissionDeniedException.class);
    }
    assertThatThrownBy(() -> JobFiles.open(job, "/etc/passwd", 0))
        .isInstanceOf(InvalidInputException.class);
    assertThatThrownBy(() -> JobFiles.open(job, "", 0)).isInstanceOf(InvalidInputException.class);
    assertThatThrownBy(() -> JobFiles.open(job, "missing.md", 0))
        .isInstanceOf(NotFoundException.class);
    assertThatThrownBy(() -> JobFiles.open(job, "leaderboard.md", -1))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("offset");
    assertThatThrownBy(() -> JobFiles.open(job, "leaderboard.md", 10))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("past the end");
  }
}
