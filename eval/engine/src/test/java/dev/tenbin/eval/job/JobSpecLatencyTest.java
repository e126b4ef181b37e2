package dev.tenbin.eval.job;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tenbin.core.InvalidInputException;
import dev.tenbin.eval.plan.PlannedCell;
import dev.tenbin.eval.retrieval.LatencyProbe;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A job spec's {@code latency: {concurrency: N}}: read, checked, and outside the fingerprints. */
class JobSpecLatencyTest {
  private static final String SPEC = "name: j\ntask_sets: [tasks.yaml]\nretrievers: [bm25]\n";

  private static JobSpec parse(String extra) {
    return JobSpec.parse(SPEC + extra, Path.of("/jobs/job.yaml"));
  }

  @Test
  void theConcurrencyIsFourUnlessTheSpecStatesAnother() {
    assertThat(LatencyProbe.CONCURRENCY).isEqualTo(4);
    assertThat(parse("").latencyConcurrency()).isEqualTo(LatencyProbe.CONCURRENCY);
    assertThat(parse("latency: {}\n").latencyConcurrency()).isEqualTo(LatencyProbe.CONCURRENCY);
    JobSpec eight = parse("latency: {concurrency: 8}\n");
    assertThat(eight.latencyConcurrency()).isEqualTo(8);
    assertThat(eight.settings().latencyConcurrency()).isEqualTo(8);
    assertThat(eight.withPositions(eight.positions()).latencyConcurrency()).isEqualTo(8);
    assertThat(parse("latency:\n  concurrency: 1\n").latencyConcurrency()).isEqualTo(1);
    assertThat(parse("latency: {concurrency: 256}\n").latencyConcurrency()).isEqualTo(256);
  }

  @Test
  void aBadConcurrencyIsRefusedNamingTheField() {
    for (String value : List.of("0", "-3", "257", "many", "'8'", "1.5", "[4]", "99999999999")) {
      assertThatThrownBy(() -> parse("latency: {concurrency: " + value + "}\n"))
          .as(value)
          .isInstanceOf(InvalidInputException.class)
          .hasMessageContaining("field latency.concurrency")
          .satisfies(
              e ->
                  assertThat(((InvalidInputException) e).field()).isEqualTo("latency.concurrency"));
    }
    assertThatThrownBy(() -> parse("latency: {concurrency: 0}\n"))
        .hasMessageContaining("must be within 1..256, got 0");
    assertThatThrownBy(() -> parse("latency: {concurrency: many}\n"))
        .hasMessageContaining("must be a whole number, got 'many'");
    assertThatThrownBy(() -> parse("latency: {threads: 8}\n"))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("field latency.threads")
        .hasMessageContaining("expected concurrency");
    assertThatThrownBy(() -> parse("latency: 8\n"))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("field latency:")
        .hasMessageContaining("expected {concurrency: N}");
  }

  @Test
  void theConcurrencyIsAMeasurementNotPartOfAnyFingerprint() {
    String retrievers = "retrievers: [bm25, 'dense:m', 'hybrid:bm25+dense:m']\n";
    List<String> four = fingerprints("name: j\ntask_sets: [tasks.yaml]\n" + retrievers);
    List<String> eight =
        fingerprints(
            "name: j\ntask_sets: [tasks.yaml]\n" + retrievers + "latency: {concurrency: 8}\n");

    assertThat(four).isNotEmpty().isEqualTo(eight);
  }

  private static List<String> fingerprints(String spec) {
    return PlanFixtures.cells(
            PlanFixtures.plan(
                spec,
                PlanFixtures.models("rev-1", List.of()),
                PlanFixtures.noModels(),
                PlanFixtures.emptyTask("sha-1")))
        .stream()
        .map(PlannedCell::fingerprint)
        .toList();
  }
}
