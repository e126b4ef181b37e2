package dev.tenbin.eval.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tenbin.eval.store.ResultStore;
import dev.tenbin.testing.data.TinyBeir;
import dev.tenbin.testing.models.TinyModels;
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
    TinyBeir.write(tmp.resolve("data").resolve("tiny"));
    Path models = tmp.resolve("models");
    TinyModels.dense(models, "tiny-dense", false);
    Files.writeString(
        tmp.resolve("tasks.yaml"),
        "name: b\ntasks:\n  - {name: tiny, language: en, source: {path: data/tiny}}\n"
            + "  - {name: tiny2, language: en, source: {path: data/tiny}}\n");
    Path spec = tmp.resolve("job.yaml");
    Files.writeString(
        spec,
        "task_sets: [tasks.yaml]\nretrievers:\n  - bm25\n  - {retriever: dense:tiny-dense, variants: [base, int8, binary]}\n"
            + "  - light:tiny-dense\n");
    Path out = tmp.resolve("out");
    List<String> command = new ArrayList<>(KilledChildJvm.command(TenbinCli.class.getName(), tmp));
    command.addAll(
        List.of(
            "run",
            spec.toString(),
            "--out",
            out.toString(),
            "--models-dir",
            models.toString(),
            "--cache-dir",
            tmp.resolve("cache").toString(),
            "--progress",
            "lines",
            "--no-reports"));
    Process first =
        new ProcessBuilder(command)
            .redirectErrorStream(true)
            .redirectOutput(tmp.resolve("first.log").toFile())
            .start();
    Path events = out.resolve("events.jsonl");
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
    while (System.nanoTime() < deadline
        && first.isAlive()
        && !(Files.exists(events) && Files.readString(events).contains("cell_stored"))) {
      Thread.sleep(5);
    }
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
