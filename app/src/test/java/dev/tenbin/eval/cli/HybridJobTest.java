package dev.tenbin.eval.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tenbin.eval.result.ConcurrentLatency;
import dev.tenbin.eval.store.CellRecord;
import dev.tenbin.eval.store.ResultStore;
import dev.tenbin.eval.store.StoredDoc;
import dev.tenbin.eval.store.StoredQuery;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Hybrids in a job and in {@code tenbin eval}: fused from the stored cells of their components,
 * which are computed once.
 */
class HybridJobTest {
  @TempDir Path tmp;
  private Path data;

  @BeforeEach
  void writeJob() throws Exception {
    data = TinyJob.write(tmp);
  }

  private CliRunner run(String name, String retrievers) throws Exception {
    Path spec = tmp.resolve(name + ".yaml");
    Files.writeString(
        spec, "name: " + name + "\ntask_sets: [tasks.yaml]\nretrievers:\n" + retrievers);
    return TinyJob.run(tmp, spec, tmp.resolve(name), tmp.resolve("cache"));
  }

  private static CellRecord cell(List<CellRecord> cells, String system, String variant) {
    return cells.stream()
        .filter(c -> c.key().system().name().equals(system) && c.key().variant().equals(variant))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no cell " + system + "/" + variant));
  }

  @Test
  void aHybridFusesItsComponentsStoredRankingsWithoutComputingThemAgain() throws Exception {
    CliRunner first =
        run(
            "job",
            """
              - bm25
              - {retriever: dense:tiny-dense, variants: [base]}
              - hybrid:bm25+dense:tiny-dense
              - {hybrid: {of: [bm25, dense:tiny-dense], fusion: minmax, weight: 0.3}}
            latency: {concurrency: 2}
            """);
    assertThat(first.exitCode()).as(first.err()).isZero();
    Path out = tmp.resolve("job");
    List<CellRecord> cells = ResultStore.existing(out, "--out").readAll();
    assertThat(cells)
        .extracting(c -> c.key().system().name() + "/" + c.key().variant())
        .containsExactlyInAnyOrder(
            "bm25/base",
            "dense:tiny-dense/base",
            "hybrid:bm25+dense:tiny-dense/rrf_k60",
            "hybrid:bm25+dense:tiny-dense/minmax_w0.3");

    // Each component ran once: two hybrids read the same two stored cells.
    Map<String, Integer> started = new HashMap<>();
    for (String line : Files.readAllLines(out.resolve("events.jsonl"), StandardCharsets.UTF_8)) {
      JsonNode event = ResultStore.JSON.readTree(line);
      if (event.get("event").asText().equals("work_started")) {
        started.merge(event.get("work").asText(), 1, Integer::sum);
      }
    }
    assertThat(started)
        .containsOnly(
            Map.entry("bm25 on tiny-bench/tiny", 1),
            Map.entry("dense:tiny-dense on tiny-bench/tiny", 1),
            Map.entry("hybrid:bm25+dense:tiny-dense on tiny-bench/tiny", 2));

    // The RRF cell is Σ ½/(60 + rank) over the two stored rankings, ties by doc id.
    CellRecord bm25 = cell(cells, "bm25", "base");
    CellRecord dense = cell(cells, "dense:tiny-dense", "base");
    CellRecord rrf = cell(cells, "hybrid:bm25+dense:tiny-dense", "rrf_k60");
    assertThat(rrf.key().system().family()).isEqualTo("hybrid");
    assertThat(rrf.queries()).hasSize(bm25.queries().size());
    assertRrf(rrf, 60, bm25, dense);
    assertThat(rrf.diagnostics()).containsEntry("fusion", "RRF k=60, weights [0.5, 0.5]");

    // Each component measured its latency with the job's 2 queries in flight; a hybrid query runs
    // through both: their latencies and their times per query added.
    ConcurrentLatency bm25Latency = ConcurrentLatency.fromDiagnostics(bm25.diagnostics());
    ConcurrentLatency denseLatency = ConcurrentLatency.fromDiagnostics(dense.diagnostics());
    assertThat(bm25Latency.inFlight()).isEqualTo(2);
    assertThat(denseLatency.inFlight()).isEqualTo(2);
    assertThat(denseLatency.queriesPerSecond()).isPositive();
    ConcurrentLatency rrfLatency = ConcurrentLatency.fromDiagnostics(rrf.diagnostics());
    assertThat(rrfLatency.inFlight()).isEqualTo(2);
    assertThat(rrfLatency.p50Us()).isEqualTo(bm25Latency.p50Us() + denseLatency.p50Us());
    assertThat(rrfLatency.queriesPerSecond())
        .isEqualTo(ConcurrentLatency.serial(List.of(bm25Latency, denseLatency)).queriesPerSecond());
    assertThat(rrf.timings())
        .containsEntry("concurrent_latency_p99_us", bm25Latency.p99Us() + denseLatency.p99Us());

    // Run again: nothing computed; the same plan in another folder gives the same fingerprints.
    CliRunner again =
        run("job", Files.readString(tmp.resolve("job.yaml")).split("retrievers:\n")[1]);
    assertThat(again.exitCode()).as(again.err()).isZero();
    assertThat(again.err()).contains("4 already stored, 0 computed");

    // The hybrid alone plans its components itself, with the same fingerprints (the queries in
    // flight of the latency measurement, 4 here, are not part of them).
    CliRunner alone = run("alone", "  - hybrid:bm25+dense:tiny-dense\n");
    assertThat(alone.exitCode()).as(alone.err()).isZero();
    List<CellRecord> aloneCells = ResultStore.existing(tmp.resolve("alone"), "--out").readAll();
    assertThat(aloneCells)
        .extracting(CellRecord::fingerprint)
        .containsExactlyInAnyOrder(bm25.fingerprint(), dense.fingerprint(), rrf.fingerprint());
    assertThat(cell(aloneCells, "hybrid:bm25+dense:tiny-dense", "rrf_k60").queries())
        .isEqualTo(rrf.queries());

    // On the leaderboard the hybrid is a family of its own, its components in its name.
    JsonNode board = ResultStore.JSON.readTree(out.resolve("leaderboard.json").toFile());
    List<JsonNode> hybrids =
        board.findParents("family").stream()
            .filter(row -> row.get("family").asText().equals("hybrid"))
            .toList();
    assertThat(hybrids)
        .extracting(row -> row.get("system").asText() + "/" + row.get("variant").asText())
        .contains(
            "hybrid:bm25+dense:tiny-dense/rrf_k60", "hybrid:bm25+dense:tiny-dense/minmax_w0.3");
    assertThat(hybrids)
        .allSatisfy(row -> assertThat(row.get("concurrent_in_flight").asInt()).isEqualTo(2));
    assertThat(Files.readString(out.resolve("leaderboard.md")))
        .contains("| p50 µs @2 | p99 µs @2 | q/s @2 |");
  }

  /** Each query of {@code fused} is Σ ½/(k + rank) over the components' stored rankings. */
  private static void assertRrf(CellRecord fused, int k, CellRecord first, CellRecord second) {
    assertThat(fused.queries()).hasSize(first.queries().size());
    for (StoredQuery query : fused.queries()) {
      Map<String, Double> expected = new HashMap<>();
      for (CellRecord component : List.of(first, second)) {
        for (StoredDoc doc : queryOf(component, query.queryId()).docs()) {
          expected.merge(doc.docId(), 0.5 / (k + doc.rank()), Double::sum);
        }
      }
      List<Map.Entry<String, Double>> order = new ArrayList<>(expected.entrySet());
      order.sort(
          Comparator.<Map.Entry<String, Double>>comparingDouble(e -> -(float) (double) e.getValue())
              .thenComparing(Map.Entry::getKey));
      assertThat(query.docs())
          .extracting(StoredDoc::docId)
          .as(query.queryId())
          .containsExactlyElementsOf(order.stream().map(Map.Entry::getKey).toList());
      for (StoredDoc doc : query.docs()) {
        assertThat(doc.score()).isEqualTo((double) (float) (double) expected.get(doc.docId()));
      }
    }
  }

  @Test
  void lightRetrieversHybridFusesItsSidesByRrfWhenTheJobSaysSo() throws Exception {
    Path spec = tmp.resolve("light.yaml");
    Files.writeString(
        spec,
        "name: light\ntask_sets: [tasks.yaml]\nretrievers: [light:tiny-dense]\n"
            + "light_hybrid_fusion: rrf_k10\n");
    CliRunner result = TinyJob.run(tmp, spec, tmp.resolve("light"), tmp.resolve("cache"));
    assertThat(result.exitCode()).as(result.err()).isZero();
    List<CellRecord> cells = ResultStore.existing(tmp.resolve("light"), "--out").readAll();
    CellRecord hybrid = cell(cells, "light-hybrid:tiny-dense", "rrf_k10");
    assertThat(hybrid.diagnostics()).containsEntry("fusion", "RRF k=10, dense weight 0.5");
    assertRrf(
        hybrid,
        10,
        cell(cells, "light:tiny-dense", "base"),
        cell(cells, "light-sparse:tiny-dense", "base"));
  }

  private static StoredQuery queryOf(CellRecord cell, String queryId) {
    return cell.queries().stream()
        .filter(q -> q.queryId().equals(queryId))
        .findFirst()
        .orElseThrow();
  }

  @Test
  void evalTakesAHybridRetrieverAndItsFusionAsAVariant() throws Exception {
    CliRunner result =
        CliRunner.run(
            "eval",
            "--dataset",
            data.toString(),
            "--retriever",
            "bm25,dense:tiny-dense,hybrid:bm25+dense:tiny-dense",
            "--variant",
            "base",
            "--variant",
            "rrf",
            "--variant",
            "minmax_w0.7",
            "--models-dir",
            TinyJob.models(tmp).toString(),
            "--cache-dir",
            tmp.resolve("cache").toString(),
            "--json");
    assertThat(result.exitCode()).as(result.err()).isZero();
    JsonNode runs = ResultStore.JSON.readTree(result.out()).get("runs");
    List<String> names = new ArrayList<>();
    runs.forEach(r -> names.add(r.get("retriever").asText() + "/" + r.get("variant").asText()));
    assertThat(names)
        .containsExactly(
            "bm25/base",
            "dense:tiny-dense/base",
            "hybrid:bm25+dense:tiny-dense/rrf_k60",
            "hybrid:bm25+dense:tiny-dense/minmax_w0.7");
    assertThat(result.err())
        .containsOnlyOnce("tenbin: bm25 on")
        .containsOnlyOnce("tenbin: dense:tiny-dense on");
  }

  @Test
  void evalRefusesABadHybridNamingTheFlag() throws Exception {
    Map<String, List<String>> bad =
        Map.of(
            "fuses one retriever", List.of("--retriever", "hybrid:bm25"),
            "unknown retriever 'nosuch:x'", List.of("--retriever", "hybrid:bm25+nosuch:x"),
            "at least 1",
                List.of("--retriever", "hybrid:bm25+dense:tiny-dense", "--variant", "rrf_k0"),
            "within 0..1",
                List.of("--retriever", "hybrid:bm25+dense:tiny-dense", "--variant", "rrf_w2"));
    bad.forEach(
        (message, flags) -> {
          List<String> args = new ArrayList<>(List.of("eval", "--dataset", data.toString()));
          args.addAll(flags);
          CliRunner result = CliRunner.run(args.toArray(String[]::new));
          assertThat(result.exitCode()).as(flags.toString()).isNotZero();
          assertThat(result.err()).as(flags.toString()).contains(message);
        });
    CliRunner help = CliRunner.run("eval", "--help");
    assertThat(help.out()).contains("hybrid:A+B").contains("rrf_kK").contains("minmax");
  }
}
