package dev.tenbin.eval.job;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tenbin.core.InvalidInputException;
import dev.tenbin.core.NotFoundException;
import dev.tenbin.core.PermissionDeniedException;
import dev.tenbin.core.Sha256;
import dev.tenbin.core.StorageFullException;
import dev.tenbin.rpc.StatusMapper;
import io.grpc.Status;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileTime;
import java.time.Clock;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The files of a job's folder, as the eval service lists and serves them: nothing outside. */
class JobFilesTest {
  @TempDir Path tmp;
  private Path root;
  private Path job;
  private final JobFileDigests digests = new JobFileDigests();

  @BeforeEach
  void folder() throws Exception {
    root = Files.createDirectories(tmp.resolve("results")).toRealPath();
    job = Files.createDirectories(root.resolve("job"));
    Files.writeString(job.resolve("leaderboard.md"), "| rank |\n");
    Files.createDirectories(job.resolve("cells"));
    Files.writeString(job.resolve("cells/ab.cell.json"), "{\"x\": 1}");
    Files.writeString(job.resolve(".lock"), "");
    Files.writeString(job.resolve(JobRunner.COLLECTION_KEY_FILE), "key\n");
    Files.writeString(tmp.resolve("secret.txt"), "not yours");
    Files.createSymbolicLink(job.resolve("escape.txt"), tmp.resolve("secret.txt"));
    Files.createSymbolicLink(job.resolve("outside"), tmp);
  }

  @Test
  void listsRegularFilesInPathOrderWithSizesAndDigestsButNoRunnerFilesOrLinks() {
    assertThat(JobFiles.list(root, job, digests))
        .containsExactly(
            new JobFiles.JobFile("cells/ab.cell.json", 8, Sha256.hex("{\"x\": 1}")),
            new JobFiles.JobFile("leaderboard.md", 9, Sha256.hex("| rank |\n")));
    assertThat(JobFiles.list(root, root.resolve("no-such-job"), digests)).isEmpty();
  }

  @Test
  void readsAFileFromAnOffset() throws Exception {
    try (InputStream in = JobFiles.open(root, job, "leaderboard.md", 2)) {
      assertThat(new String(in.readAllBytes(), StandardCharsets.UTF_8)).isEqualTo("rank |\n");
    }
    try (InputStream in = JobFiles.open(root, job, "cells/ab.cell.json", 8)) {
      assertThat(in.readAllBytes()).isEmpty();
    }
  }

  @Test
  void refusesEverythingThatIsNotARegularFileOfTheFolderNamingTheField() {
    for (String path :
        new String[] {"../secret.txt", "cells/../../secret.txt", "./leaderboard.md"}) {
      assertThatThrownBy(() -> JobFiles.open(root, job, path, 0))
          .as(path)
          .isInstanceOf(PermissionDeniedException.class)
          .hasMessageContaining("path");
    }
    for (String path : new String[] {"escape.txt", "outside/secret.txt", "cells"}) {
      assertThatThrownBy(() -> JobFiles.open(root, job, path, 0))
          .as(path)
          .isInstanceOf(PermissionDeniedException.class);
    }
    assertThatThrownBy(() -> JobFiles.open(root, job, "/etc/passwd", 0))
        .isInstanceOf(InvalidInputException.class);
    assertThatThrownBy(() -> JobFiles.open(root, job, "", 0))
        .isInstanceOf(InvalidInputException.class);
    assertThatThrownBy(() -> JobFiles.open(root, job, "missing.md", 0))
        .isInstanceOf(NotFoundException.class);
    assertThatThrownBy(() -> JobFiles.open(root, job, "leaderboard.md", -1))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("offset");
    assertThatThrownBy(() -> JobFiles.open(root, job, "leaderboard.md", 10))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("past the end");
  }

  @Test
  void aJobFolderReplacedByALinkOrReachedThroughOneServesNothing() throws Exception {
    Path etc = Files.createDirectories(tmp.resolve("etc"));
    Files.writeString(etc.resolve("passwd"), "root:x:0:0\n");
    Path replaced = root.resolve("dl1");
    Files.createSymbolicLink(replaced, etc);
    Files.createSymbolicLink(root.resolve("group"), tmp);
    for (Path folder : List.of(replaced, root.resolve("group/etc"))) {
      assertThatThrownBy(() -> JobFiles.open(root, folder, "passwd", 0))
          .as("%s", folder)
          .isInstanceOfSatisfying(
              PermissionDeniedException.class, e -> assertThat(e.field()).isEqualTo("job_id"));
      assertThatThrownBy(() -> JobFiles.list(root, folder, digests))
          .isInstanceOf(PermissionDeniedException.class);
      assertThatThrownBy(() -> JobFiles.checkFolder(root, folder))
          .isInstanceOf(PermissionDeniedException.class);
    }
    assertThatThrownBy(() -> JobFiles.list(root, etc, digests))
        .isInstanceOf(PermissionDeniedException.class);
    assertThatThrownBy(() -> JobFiles.open(root, root, "job/leaderboard.md", 0))
        .isInstanceOf(PermissionDeniedException.class);
  }

  @Test
  void aFailedWriteLeavesNoTemporaryAndAFullDiskIsStorageFullNamingTheCause() throws Exception {
    Path file = job.resolve("job.json");
    Files.writeString(file, "old");
    assertThatThrownBy(
            () ->
                JobFiles.replace(
                    file,
                    "new text",
                    (temporary, bytes) -> {
                      Files.write(temporary, Arrays.copyOf(bytes, 3));
                      throw new IOException("No space left on device");
                    }))
        .isInstanceOfSatisfying(
            StorageFullException.class,
            e -> {
              assertThat(e.getMessage()).contains("job.json").contains("No space left on device");
              assertThat(StatusMapper.toStatusException(e).getStatus().getCode())
                  .isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
              assertThat(StatusMapper.toStatusException(e).getStatus().getDescription())
                  .contains("No space left on device");
            });
    assertThatThrownBy(
            () ->
                JobFiles.replace(
                    file,
                    "new text",
                    (temporary, bytes) -> {
                      Files.write(temporary, bytes);
                      throw new IOException("Input/output error");
                    }))
        .isExactlyInstanceOf(IOException.class);
    assertThat(Files.readString(file)).isEqualTo("old");
    try (Stream<Path> names = Files.list(job)) {
      assertThat(names.map(p -> p.getFileName().toString())).noneMatch(n -> n.endsWith(".tmp"));
    }
    JobFiles.replace(file, "new text");
    assertThat(Files.readString(file)).isEqualTo("new text");
  }

  @Test
  void temporariesOfWritesInProgressOrLeftByACrashAreNeitherListedNorServed() throws Exception {
    String left = ".job.json." + UUID.randomUUID() + ".tmp";
    Files.writeString(job.resolve(left), "{\"half");
    Files.writeString(job.resolve("cells/.ab." + UUID.randomUUID() + ".tmp"), "x");
    Files.writeString(job.resolve("candidates.jsonl.tmp"), "x");
    assertThat(JobFiles.list(root, job, digests))
        .extracting(JobFiles.JobFile::path)
        .containsExactly("cells/ab.cell.json", "leaderboard.md");
    assertThatThrownBy(() -> JobFiles.open(root, job, left, 0))
        .isInstanceOf(NotFoundException.class);
  }

  @Test
  void aSecondListingOfUnchangedFilesReadsNoFileContent() throws Exception {
    FileTime anHourAgo = FileTime.from(Instant.now().minusSeconds(3600));
    Path leaderboard = job.resolve("leaderboard.md");
    Files.setLastModifiedTime(leaderboard, anHourAgo);
    Files.setLastModifiedTime(job.resolve("cells/ab.cell.json"), anHourAgo);
    AtomicInteger reads = new AtomicInteger();
    JobFileDigests counted =
        new JobFileDigests(
            100,
            channel -> {
              reads.incrementAndGet();
              return JobFileDigests.sha256(channel);
            },
            Clock.systemUTC());

    List<JobFiles.JobFile> first = JobFiles.list(root, job, counted);
    assertThat(reads).hasValue(2);
    assertThat(JobFiles.list(root, job, counted)).isEqualTo(first);
    assertThat(reads).hasValue(2);

    // Rewritten in place: another size and time, read again.
    Files.writeString(leaderboard, "| rank | x |\n");
    Files.setLastModifiedTime(leaderboard, FileTime.from(Instant.now().minusSeconds(1800)));
    assertThat(JobFiles.list(root, job, counted))
        .contains(new JobFiles.JobFile("leaderboard.md", 13, Sha256.hex("| rank | x |\n")));
    assertThat(reads).hasValue(3);

    // Replaced by a rename with the same size and time: another file, read again.
    Path replacement = job.resolve("replacement");
    Files.writeString(replacement, "| RANK | y |\n");
    Files.setLastModifiedTime(replacement, Files.getLastModifiedTime(leaderboard));
    Files.move(replacement, leaderboard, StandardCopyOption.REPLACE_EXISTING);
    assertThat(JobFiles.list(root, job, counted))
        .contains(new JobFiles.JobFile("leaderboard.md", 13, Sha256.hex("| RANK | y |\n")));
    assertThat(reads).hasValue(4);

    // Modified moments ago: read at every listing until it settles.
    Files.writeString(leaderboard, "| now |\n");
    JobFiles.list(root, job, counted);
    JobFiles.list(root, job, counted);
    assertThat(reads).hasValue(6);
  }
}
