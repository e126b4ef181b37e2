package dev.tenbin.drill;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tenbin.testing.models.TinyModels;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;

/**
 * A short soak ({@code tenbin drill soak}) of the four services as child processes, on a tiny dense
 * model: 36 s of load with a kill -9 and restart every 15 s. Asserts outcomes, never timings, so a
 * busy two-core machine only makes it slower.
 */
class SoakDrillIT {
  /** Kept when the test fails: the services' logs and the job folders tell why. */
  @TempDir(cleanup = CleanupMode.ON_SUCCESS)
  Path work;

  @Test
  void aShortSoakWithKillsLosesNoCellComputesNoneTwiceAndSamplesEveryService() throws Exception {
    TinyModels.dense(work.resolve("models"), "tiny-dense", false);

    CliRunner run =
        CliRunner.run(
            "drill",
            "soak",
            "--duration",
            "36s",
            "--kill-every",
            "15s",
            "--sample-every",
            "5s",
            "--model",
            "tiny-dense",
            "--documents",
            "100",
            "--heap",
            "512m",
            "--work-dir",
            work.toString(),
            "--json");

    assertThat(run.out()).as(run.err()).isNotBlank();
    JsonNode row = new ObjectMapper().readTree(run.out());
    JsonNode details = row.get("details");
    assertThat(row.get("passed").asBoolean())
        .as("%s%n%s%n%s", row.get("result").asText(), details.toPrettyString(), run.err())
        .isTrue();
    assertThat(run.exitCode()).isZero();
    JsonNode jobs = details.get("jobs");
    assertThat(jobs.get("submitted").asInt()).isPositive();
    assertThat(jobs.get("succeeded").asInt()).isEqualTo(jobs.get("submitted").asInt());
    assertThat(jobs.get("cells_planned").asInt()).isPositive();
    assertThat(jobs.get("cells_lost").asInt()).isZero();
    assertThat(jobs.get("cells_computed_twice").asInt()).isZero();
    JsonNode kills = details.get("kills");
    assertThat(kills.size()).isBetween(1, 2);
    for (JsonNode kill : kills) {
      assertThat(kill.get("new_pid").asLong()).isNotEqualTo(kill.get("pid").asLong());
      String service = kill.get("service").asText();
      assertThat(details.get("services").get(service).get("processes").asInt())
          .isGreaterThanOrEqualTo(2);
    }
    for (TenbinService service : TenbinService.values()) {
      JsonNode sampled = details.get("services").get(service.label());
      assertThat(sampled.get("samples").asInt()).as(service.label()).isGreaterThanOrEqualTo(2);
      assertThat(sampled.get("rss_mib").get("at_end").asDouble()).isPositive();
      assertThat(sampled.get("threads").get("at_end").asInt()).isPositive();
      assertThat(sampled.get("open_files").get("at_end").asInt()).isPositive();
      assertThat(sampled.get("heap_used_mib").get("at_end").asDouble()).isPositive();
    }
    assertThat(details.get("client_calls").get("encode").get("codes").get("OK").asInt())
        .isPositive();
    assertThat(details.get("client_calls").get("search").get("codes").get("OK").asInt())
        .isPositive();
    assertThat(details.get("crashed")).isEmpty();
    assertThat(details.get("exited_unasked")).isEmpty();
    assertThat(Files.readAllLines(work.resolve("samples.csv")))
        .first()
        .asString()
        .startsWith("at_s,service,generation,pid,rss_bytes");
    assertThat(work.resolve("soak-summary.json")).isRegularFile();
    assertThat(work.resolve("kills.jsonl")).isRegularFile();
  }
}
