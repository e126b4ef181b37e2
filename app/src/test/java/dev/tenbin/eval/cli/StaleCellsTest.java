package dev.tenbin.eval.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenbin.eval.store.CellRecord;
import dev.tenbin.eval.store.ResultStore;
import dev.tenbin.testing.data.TinyBeir;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An old job folder: its cell was stored under another fingerprint (as every cell of an older
 * scoring revision is, see {@code ScoringRevision}), with a stale result. Running the job again
 * recomputes the cell instead of reusing it, and the reports count the fresh result.
 */
class StaleCellsTest {
  @TempDir Path tmp;

  @Test
  void aCellStoredUnderAnOlderScoringRevisionIsRecomputedNotReused() throws Exception {
    TinyBeir.write(tmp.resolve("data").resolve("tiny"));
    Files.writeString(
        tmp.resolve("tasks.yaml"),
        "name: tiny-bench\ntasks:\n  - name: tiny\n    language: en\n    source: {path: data/tiny}\n");
    Path spec = tmp.resolve("job.yaml");
    Files.writeString(spec, "name: tiny-job\ntask_sets: [tasks.yaml]\nretrievers: [bm25]\n");
    Path out = tmp.resolve("out");
    assertThat(run(spec, out).exitCode()).isZero();
    ResultStore store = ResultStore.existing(out, "--out");
    CellRecord fresh = store.readAll().getFirst();

    // Replace it by the same cell as an older revision stored it: another fingerprint, other
    // numbers.
    String staleFingerprint = "0".repeat(63) + "1";
    Map<String, Double> staleMetrics = new TreeMap<>(fresh.metrics());
    staleMetrics.replaceAll((name, value) -> 0.125);
    CellRecord stale =
        new CellRecord(
            fresh.formatVersion(),
            staleFingerprint,
            fresh.key(),
            fresh.versions(),
            fresh.facts(),
            staleMetrics,
            fresh.tieAware(),
            fresh.timings(),
            fresh.diagnostics(),
            fresh.queries(),
            "2020-01-01T00:00:00Z");
    Files.delete(store.storedFile(fresh.fingerprint()));
    assertThat(store.append(stale)).isTrue();

    CliRunner again = run(spec, out);

    assertThat(again.exitCode()).as(again.err()).isZero();
    assertThat(again.err()).contains("0 already stored, 1 computed");
    List<CellRecord> cells = store.readAll();
    assertThat(cells)
        .extracting(CellRecord::fingerprint)
        .containsExactlyInAnyOrder(staleFingerprint, fresh.fingerprint());
    assertThat(store.read(fresh.fingerprint()).orElseThrow().metrics()).isEqualTo(fresh.metrics());
    assertThat(Files.readString(out.resolve("leaderboard.md")))
        .as("the leaderboard counts the recomputed cell, not the stale one")
        .contains(String.format("%.1f", fresh.metrics().get("ndcg@10") * 100))
        .doesNotContain("12.5");
  }

  private CliRunner run(Path spec, Path out) {
    return CliRunner.run(
        "run",
        spec.toString(),
        "--out",
        out.toString(),
        "--cache-dir",
        tmp.resolve("cache").toString(),
        "--progress",
        "lines");
  }
}
