package dev.tenbin.eval.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tenbin.eval.store.ResultStore;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A real {@code kill -9}: {@code tenbin run} in its own JVM is killed with SIGKILL as soon as it
 * has stored its first cell; the same command then finishes the job, and every planned cell is
 * stored exactly once.
 */
class RunKillResumeIT {
  @TempDir Path tmp;

  @Test
  void aJobKilledWithSigkillMidwayResumesWithNoCellLostOrDuplicated() throws Exception {
    Path out = tmp.resolve("out");
    List<String> command = TinyRunJob.write(tmp, out);
    Process first =
        new ProcessBuilder(command)
            .redirectErrorStream(true)
            .redirectOutput(tmp.resolve("first.log").toFile())
            .start();
    Path events = out.resolve("events.jsonl");
    TinyRunJob.awaitFirstCell(first, out);
    assertThat(first.isAlive())
        .as("the first run was still going when its first cell was stored")
        .isTrue();
    first.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
    int storedAtKill = ResultStore.existing(out, "--out").readAll().size();
    assertThat(storedAtKill).isBetween(1, 13);

    Process second =
        new ProcessBuilder(command)
            .redirectErrorStream(true)
            .redirectOutput(tmp.resolve("second.log").toFile())
            .start();
    assertThat(second.waitFor(180, TimeUnit.SECONDS)).isTrue();
    String log = Files.readString(tmp.resolve("second.log"));
    assertThat(second.exitValue()).as(log).isZero();
    assertThat(log)
        .contains(
            "14 cells, " + storedAtKill + " already stored, " + (14 - storedAtKill) + " computed");

    assertThat(ResultStore.existing(out, "--out").readAll()).hasSize(14);
    Map<String, Integer> stored = new HashMap<>();
    for (String line : Files.readAllLines(events, StandardCharsets.UTF_8)) {
      if (line.isBlank() || !line.endsWith("}")) {
        continue; // a line torn by the kill
      }
      JsonNode event = ResultStore.JSON.readTree(line);
      if (event.get("event").asText().equals("cell_stored")) {
        stored.merge(event.get("detail").asText().split(" ")[0], 1, Integer::sum);
      }
    }
    // Each cell was computed and stored once: no fingerprint is logged twice. (A kill between a
    // cell's
    // rename and its log line can leave that one cell unlogged; it is still never recomputed.)
    assertThat(stored)
        .allSatisfy((fingerprint, times) -> assertThat(times).as(fingerprint).isEqualTo(1));
    assertThat(stored.size()).isBetween(13, 14);
    JsonNode plan = ResultStore.JSON.readTree(out.resolve("job.json").toFile());
    List<String> planned = new ArrayList<>();
    plan.get("cells").forEach(cell -> planned.add(cell.get("fingerprint").asText()));
    ResultStore store = ResultStore.existing(out, "--out");
    assertThat(planned).hasSize(14).allMatch(store::contains);
  }
}
