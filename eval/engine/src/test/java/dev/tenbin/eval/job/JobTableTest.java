package dev.tenbin.eval.job;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tenbin.core.PreconditionException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The durable job table: records round-trip exactly, replace atomically, and one service owns a
 * state folder.
 */
class JobTableTest {
  @TempDir Path tmp;

  static JobRecord record(String id, long sequence, JobManager.State state) {
    return new JobRecord(
        id,
        sequence,
        "name-" + sequence,
        state,
        false,
        new JobRequest(
            "name: x\ntask_sets: [a.yaml]\n",
            List.of(
                new JobRequest.TaskSetDocument(
                    "a.yaml", "name: a\n# ünïcode, \"quotes\"\n", "/client/sets")),
            "runs/x"),
        Path.of("/results/runs/x"),
        Instant.parse("2026-11-23T10:15:30.123456Z"),
        null,
        null,
        0,
        0,
        0,
        "");
  }

  @Test
  void aRecordRoundTripsWithEveryField() {
    JobRecord queued = record("job-00000000000a", 7, JobManager.State.QUEUED);
    JobRecord finished =
        new JobRecord(
            "job-00000000000b",
            8,
            "done",
            JobManager.State.FAILED,
            true,
            queued.request(),
            Path.of("/results/b"),
            Instant.parse("2026-11-23T10:00:00Z"),
            Instant.parse("2026-11-23T10:01:00Z"),
            Instant.parse("2026-11-23T10:02:00Z"),
            14,
            13,
            5,
            "bm25 on t: broken");
    try (JobTable table = JobTable.open(tmp)) {
      table.save(finished);
      table.save(queued);
    }
    try (JobTable table = JobTable.open(tmp)) {
      assertThat(table.load()).containsExactly(queued, finished);
    }
  }

  @Test
  void saveReplacesTheRecordAndLeavesNoTemporaryFile() throws Exception {
    try (JobTable table = JobTable.open(tmp)) {
      JobRecord queued = record("job-00000000000a", 1, JobManager.State.QUEUED);
      table.save(queued);
      JobRecord running =
          new JobRecord(
              queued.id(),
              1,
              queued.name(),
              JobManager.State.RUNNING,
              false,
              queued.request(),
              queued.outputDirectory(),
              queued.submitted(),
              Instant.now(),
              null,
              3,
              1,
              0,
              "");
      table.save(running);
      assertThat(table.load()).containsExactly(running);
      try (var files = Files.list(tmp.resolve("jobs").resolve(queued.id()))) {
        assertThat(files.map(f -> f.getFileName().toString())).containsExactly("job.json");
      }
    }
  }

  @Test
  void eventsAreAppendedInOrderAndATornLineIsSkipped() throws Exception {
    try (JobTable table = JobTable.open(tmp)) {
      table.event("job-00000000000a", "submitted", "into /r");
      table.event("job-00000000000a", "started", "");
      Files.writeString(
          tmp.resolve("jobs/job-00000000000a/events.jsonl"),
          "{\"at\": \"2026",
          java.nio.file.StandardOpenOption.APPEND);
      assertThat(table.events("job-00000000000a"))
          .extracting(e -> e.get("event").asText())
          .containsExactly("submitted", "started");
    }
  }

  @Test
  void anUnreadableRecordIsSkippedAndKept() throws Exception {
    try (JobTable table = JobTable.open(tmp)) {
      table.save(record("job-00000000000a", 1, JobManager.State.SUCCEEDED));
      Files.createDirectories(tmp.resolve("jobs/job-00000000000b"));
      Files.writeString(tmp.resolve("jobs/job-00000000000b/job.json"), "{\"format\": 1, \"id\": ");
      assertThat(table.load()).extracting(JobRecord::id).containsExactly("job-00000000000a");
      assertThat(tmp.resolve("jobs/job-00000000000b/job.json")).exists();
    }
  }

  @Test
  void aSecondTableOverTheSameStateFolderIsRefused() {
    try (JobTable table = JobTable.open(tmp)) {
      assertThatThrownBy(() -> JobTable.open(tmp))
          .isInstanceOfSatisfying(
              PreconditionException.class, e -> assertThat(e.field()).isEqualTo("--state-dir"));
    }
    JobTable.open(tmp).close();
  }

  @Test
  void aNewStateFolderRecordsItsFormatAndAFolderOfANewerFormatIsRefusedNamingBoth()
      throws Exception {
    Path state = tmp.resolve("state");
    try (JobTable table = JobTable.open(state)) {
      table.save(record("job-00000000000a", 1, JobManager.State.QUEUED));
    }
    com.fasterxml.jackson.databind.JsonNode marker =
        new com.fasterxml.jackson.databind.ObjectMapper()
            .readTree(state.resolve("FORMAT").toFile());
    assertThat(marker.path("format").asInt()).isEqualTo(1);
    assertThat(marker.path("written_by").asText())
        .isEqualTo(dev.tenbin.eval.provenance.TenbinVersion.get());
    try (JobTable again = JobTable.open(state)) {
      assertThat(again.load()).extracting(JobRecord::id).containsExactly("job-00000000000a");
    }

    // What a newer Tenbin would leave: an older one refuses to start on it and says what to do.
    Files.writeString(state.resolve("FORMAT"), "{\"format\": 2, \"written_by\": \"9.9.9\"}");
    assertThatThrownBy(() -> JobTable.open(state))
        .isInstanceOf(PreconditionException.class)
        .hasMessageContaining("--state-dir")
        .hasMessageContaining("has state format 2 (written by Tenbin 9.9.9)")
        .hasMessageContaining("reads format 1")
        .hasMessageContaining("restore the state folder backed up before the upgrade");
    // The refusal released the folder's lock: the right version can open it at once.
    Files.writeString(state.resolve("FORMAT"), "{\"format\": 1, \"written_by\": \"x\"}");
    try (JobTable restored = JobTable.open(state)) {
      assertThat(restored.load()).hasSize(1);
    }
  }
}
