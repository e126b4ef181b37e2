package dev.tenbin.eval.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A Nano-set's recorded fidelity ({@code tenbin nano fidelity --record}) appears in the
 * leaderboards of the jobs that run on it, while the folder still holds the collection it was
 * measured on.
 */
class NanoFidelityInJobsTest {
  private static final String RETRIEVERS =
      "retrievers:\n  - bm25\n  - {retriever: bm25, k1: 1.2, b: 0.75}\n";

  @TempDir Path tmp;

  @Test
  void aJobOnANanoSetShowsItsRecordedFidelityUntilTheNanoSetChanges() throws Exception {
    Path full = TinyJob.write(tmp);
    Path nano = tmp.resolve("data/nano");
    Files.createDirectories(nano.resolve("qrels"));
    for (String file : new String[] {"corpus.jsonl", "queries.jsonl", "qrels/test.tsv"}) {
      Files.copy(full.resolve(file), nano.resolve(file));
    }
    Files.writeString(nano.resolve("nano.json"), "{\"source\": \"data/tiny\"}\n");
    Files.writeString(
        tmp.resolve("nano-tasks.yaml"),
        "name: nano-bench\ntasks:\n  - {name: nano, language: en, source: {path: data/nano}}\n");
    Path fullSpec =
        Files.writeString(tmp.resolve("full.yaml"), "task_sets: [tasks.yaml]\n" + RETRIEVERS);
    Path nanoSpec =
        Files.writeString(tmp.resolve("nano.yaml"), "task_sets: [nano-tasks.yaml]\n" + RETRIEVERS);
    Path fullOut = tmp.resolve("out-full");
    Path nanoOut = tmp.resolve("out-nano");
    Path cache = tmp.resolve("cache");
    assertThat(TinyJob.run(tmp, fullSpec, fullOut, cache).exitCode()).isZero();
    CliRunner first = TinyJob.run(tmp, nanoSpec, nanoOut, cache);
    assertThat(first.exitCode()).as(first.err()).isZero();
    assertThat(Files.readString(nanoOut.resolve("leaderboard.md")))
        .doesNotContain("Nano-set fidelity");

    CliRunner record =
        CliRunner.run(
            "nano",
            "fidelity",
            "--nano",
            nanoOut.toString(),
            "--full",
            fullOut.toString(),
            "--record",
            nano.toString());
    assertThat(record.exitCode()).as(record.err()).isZero();
    JsonNode recorded = new ObjectMapper().readTree(nano.resolve("fidelity.json").toFile());
    assertThat(recorded.get("nano_dataset_sha").asText()).hasSize(64);

    CliRunner again = TinyJob.run(tmp, nanoSpec, nanoOut, cache);
    assertThat(again.exitCode()).as(again.err()).isZero();
    assertThat(Files.readString(nanoOut.resolve("leaderboard.md")))
        .contains(
            "## Nano-set fidelity",
            // Both BM25 settings score the same on both collections: a tie, which τ-b leaves
            // undefined (NanoFidelityTest covers the statistics themselves).
            "nano-bench/nano is a Nano-set: ndcg@10 ranks 2 systems as tiny-bench/tiny does:"
                + " Kendall τ-b n/a, 0 of 1 pairs ordered the same, 2 of the top 2 shared;"
                + " 0 systems differ from the full collection beyond its 95% interval");
    JsonNode json =
        new ObjectMapper()
            .readTree(nanoOut.resolve("leaderboard.json").toFile())
            .get("nano_fidelity");
    assertThat(json).hasSize(1);
    assertThat(json.get(0).get("task").asText()).isEqualTo("nano-bench/nano");
    assertThat(json.get(0).get("kendall_tau_b").isNull()).isTrue();
    assertThat(json.get(0).get("systems").asInt()).isEqualTo(2);
    assertThat(Files.readString(nanoOut.resolve("leaderboard.html")))
        .contains("nano-bench/nano is a Nano-set");
    CliRunner report = CliRunner.run("report", nanoOut.toString(), "--format", "markdown");
    assertThat(report.out()).contains("## Nano-set fidelity");

    // Another collection in the folder: the record no longer describes it.
    Files.writeString(
        nano.resolve("corpus.jsonl"),
        "{\"_id\": \"d5\", \"text\": \"plums and apples\"}\n",
        StandardCharsets.UTF_8,
        StandardOpenOption.APPEND);
    CliRunner changed = TinyJob.run(tmp, nanoSpec, nanoOut, cache);
    assertThat(changed.exitCode()).as(changed.err()).isZero();
    assertThat(Files.readString(nanoOut.resolve("leaderboard.md")))
        .doesNotContain("Nano-set fidelity");
    try (var kept = Files.list(nanoOut.resolve("nano-fidelity"))) {
      assertThat(kept).isEmpty();
    }
  }
}
