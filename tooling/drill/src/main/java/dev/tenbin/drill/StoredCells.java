package dev.tenbin.drill;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tenbin.eval.store.ResultStore;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

/**
 * What a job folder holds against its plan: the cells {@code job.json} plans, how many of them the
 * result store lacks, how many fingerprints {@code events.jsonl} logs as stored more than once (a
 * cell computed twice), and how many work items were retried after UNAVAILABLE.
 *
 * @param planned cells in the job's plan
 * @param missing planned cells not in the result store
 * @param storedTwice fingerprints with more than one {@code cell_stored} event
 * @param retries {@code work_retry} events
 */
record StoredCells(int planned, int missing, int storedTwice, int retries) {
  static final StoredCells NONE = new StoredCells(0, 0, 0, 0);

  /** The counts of {@code folder}; all zero when it holds no {@code job.json} yet. */
  static StoredCells of(Path folder) throws IOException {
    if (!Files.isRegularFile(folder.resolve("job.json"))) {
      return NONE;
    }
    JsonNode plan = ResultStore.JSON.readTree(folder.resolve("job.json").toFile());
    ResultStore store =
        Files.isDirectory(folder.resolve("cells")) ? ResultStore.existing(folder, "job") : null;
    int planned = 0;
    int missing = 0;
    for (JsonNode cell : plan.get("cells")) {
      planned++;
      missing += store != null && store.contains(cell.get("fingerprint").asText()) ? 0 : 1;
    }
    Map<String, Integer> stored = new HashMap<>();
    int retries = 0;
    Path events = folder.resolve("events.jsonl");
    if (Files.exists(events)) {
      for (String line : Files.readAllLines(events, StandardCharsets.UTF_8)) {
        if (line.isBlank() || !line.endsWith("}")) {
          continue; // a line torn by a kill
        }
        JsonNode event = ResultStore.JSON.readTree(line);
        retries += event.path("event").asText().equals("work_retry") ? 1 : 0;
        if (event.path("event").asText().equals("cell_stored")) {
          stored.merge(event.get("detail").asText().split(" ")[0], 1, Integer::sum);
        }
      }
    }
    int twice = (int) stored.values().stream().filter(times -> times > 1).count();
    return new StoredCells(planned, missing, twice, retries);
  }

  StoredCells plus(StoredCells other) {
    return new StoredCells(
        planned + other.planned,
        missing + other.missing,
        storedTwice + other.storedTwice,
        retries + other.retries);
  }
}
