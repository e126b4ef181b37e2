package dev.tenbin.eval.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenbin.testing.data.TinyBeir;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * docs/operations.md's backup, rollback and restore of the eval volume, rehearsed on real {@code
 * tenbin serve eval} processes: a job's state and results are copied while the service is stopped;
 * a service whose state folder was written by a newer format (what a rollback across a format
 * change meets) refuses to start, naming both formats and the restore; the copy put back serves the
 * job as it was, and its results download byte for byte.
 */
class EvalBackupRestoreIT {
  @TempDir Path tmp;

  @Test
  void aStateFolderCopiedWhileStoppedIsRestoredAndANewerFormatIsRefused() throws Exception {
    Path data = tmp.resolve("data");
    TinyBeir.write(data.resolve("tiny"));
    Path client = Files.createDirectories(tmp.resolve("client"));
    Files.writeString(
        client.resolve("tasks.yaml"),
        "name: b\ntasks:\n  - {name: tiny, language: en, source: {path: ../data/tiny}}\n");
    Path spec = client.resolve("job.yaml");
    Files.writeString(spec, "task_sets: [tasks.yaml]\nretrievers: [bm25]\n");
    Path state = tmp.resolve("state");
    Path results = Files.createDirectories(tmp.resolve("results"));

    // A job run to its end, then the service stopped (the doc's "scale to 0").
    String id;
    Process first =
        EvalServiceProcess.start(tmp, tmp.resolve("first.log"), data, tmp.resolve("models"));
    try {
      String endpoint = EvalServiceProcess.endpoint(first, tmp.resolve("first.log"));
      CliRunner submit =
          CliRunner.run(
              "job", "submit", spec.toString(), "--out", "job", "--watch", "--endpoint", endpoint);
      assertThat(submit.exitCode()).as(submit.err()).isZero();
      id = submit.out().lines().findFirst().orElseThrow().strip();
    } finally {
      stop(first);
    }

    // The backup: both folders copied while nothing writes.
    Path backup = tmp.resolve("backup");
    copyTree(state, backup.resolve("state"));
    copyTree(results, backup.resolve("results"));
    TreeMap<String, String> original = contents(results.resolve("job"));
    assertThat(original).containsKey("job.json");

    // A newer Tenbin's state format, as a rollback across a format change finds it.
    Files.writeString(
        state.resolve("FORMAT"), "{\"format\": 99, \"written_by\": \"9.9.9-newer\"}\n");
    Process refused =
        EvalServiceProcess.start(tmp, tmp.resolve("refused.log"), data, tmp.resolve("models"));
    assertThat(refused.waitFor(60, TimeUnit.SECONDS)).as("the service exits").isTrue();
    String refusal = Files.readString(tmp.resolve("refused.log"));
    assertThat(refused.exitValue()).as(refusal).isNotZero();
    assertThat(refusal)
        .contains("has state format 99 (written by Tenbin 9.9.9-newer)")
        .contains("reads format 1")
        .contains("restore the state folder backed up before the upgrade")
        .doesNotContain("Exception");

    // The restore: the copies put back; the job is served as it was and downloads unchanged.
    deleteTree(state);
    deleteTree(results);
    copyTree(backup.resolve("state"), state);
    copyTree(backup.resolve("results"), results);
    Process restored =
        EvalServiceProcess.start(tmp, tmp.resolve("restored.log"), data, tmp.resolve("models"));
    try {
      String endpoint = EvalServiceProcess.endpoint(restored, tmp.resolve("restored.log"));
      CliRunner list = CliRunner.run("job", "list", "--endpoint", endpoint);
      assertThat(list.exitCode()).as(list.err()).isZero();
      assertThat(list.out()).contains(id).contains("succeeded");
      Path download = tmp.resolve("download");
      CliRunner results2 =
          CliRunner.run(
              "job", "results", id, "--download", download.toString(), "--endpoint", endpoint);
      assertThat(results2.exitCode()).as(results2.err()).isZero();
      TreeMap<String, String> downloaded = contents(download);
      assertThat(downloaded).isNotEmpty();
      downloaded.forEach(
          (file, digest) -> assertThat(original.get(file)).as(file).isEqualTo(digest));
    } finally {
      stop(restored);
    }
  }

  /** SIGTERM, as a scale-down sends, and the service's own drain. */
  private static void stop(Process service) throws InterruptedException {
    service.destroy();
    if (!service.waitFor(60, TimeUnit.SECONDS)) {
      service.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
    }
  }

  /** Each regular file under {@code root} by its relative path, with its bytes' hex digest. */
  private static TreeMap<String, String> contents(Path root) throws Exception {
    TreeMap<String, String> files = new TreeMap<>();
    try (Stream<Path> walk = Files.walk(root)) {
      for (Path file : walk.filter(Files::isRegularFile).toList()) {
        byte[] digest = MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(file));
        files.put(root.relativize(file).toString(), HexFormat.of().formatHex(digest));
      }
    }
    return files;
  }

  private static void copyTree(Path from, Path to) throws IOException {
    try (Stream<Path> walk = Files.walk(from)) {
      for (Path source : walk.toList()) {
        Path target = to.resolve(from.relativize(source).toString());
        if (Files.isDirectory(source)) {
          Files.createDirectories(target);
        } else {
          Files.copy(source, target);
        }
      }
    }
  }

  private static void deleteTree(Path root) throws IOException {
    try (Stream<Path> walk = Files.walk(root)) {
      for (Path path : walk.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(path);
      }
    }
  }
}
