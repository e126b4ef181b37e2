package dev.tenbin.bench.index;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import dev.tenbin.bench.index.IndexScalingBenchmark.Config;
import dev.tenbin.bench.index.IndexScalingBenchmark.HnswCurve;
import dev.tenbin.bench.index.IndexScalingBenchmark.HnswPoint;
import dev.tenbin.bench.index.IndexScalingBenchmark.Memory;
import dev.tenbin.bench.index.IndexScalingBenchmark.RescoreCurve;
import dev.tenbin.bench.index.IndexScalingBenchmark.ShardedHnswCurve;
import dev.tenbin.bench.index.IndexScalingBenchmark.ShortlistPoint;
import dev.tenbin.bench.index.IndexScalingBenchmark.SizeResult;
import dev.tenbin.index.dense.Quantization;
import dev.tenbin.index.rank.OrdinalHit;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The arithmetic of the scaling bench, and one tiny run end to end (its timings not asserted). */
class IndexScalingBenchmarkTest {
  private static final Set<Quantization> ALL_GRAPHS = Set.of(Quantization.values());
  @TempDir Path dir;

  private static final Memory NO_MEMORY = new Memory(-1, -1, -1, -1, 0);

  private static SizeResult result(
      double floatMs, double int8Ms, double binaryMs, HnswCurve curve) {
    return new SizeResult(
        1_000,
        100,
        400_000,
        5_000,
        NO_MEMORY,
        NO_MEMORY,
        floatMs,
        floatMs / 4,
        int8Ms,
        binaryMs,
        int8Ms * 2,
        binaryMs * 2,
        0.9,
        0.8,
        40,
        List.of(),
        curve == null ? List.of() : List.of(curve),
        List.of());
  }

  private static Config config(List<Integer> sizes, int hnswMaxSize) {
    return new Config(
        sizes,
        16,
        3,
        8,
        5,
        hnswMaxSize,
        ALL_GRAPHS,
        List.of(10, 40),
        List.of(10, 30),
        4,
        0,
        20,
        dir());
  }

  private static Path dir() {
    return Path.of(System.getProperty("java.io.tmpdir"));
  }

  @Test
  void ratiosAreFloatTimeOverEachMethodsTimeAndGflopsCountAMultiplyAndAnAddPerValue() {
    SizeResult r = result(2.0, 0.5, 0.1, null);
    assertThat(r.int8Speedup()).isCloseTo(4.0, within(1e-12));
    assertThat(r.binarySpeedup()).isCloseTo(20.0, within(1e-12));
    // 2 · 1,000 · 100 FLOP in 2 ms = 0.1 GFLOP/s; peak 40.
    assertThat(r.floatGflops()).isCloseTo(0.1, within(1e-12));
    assertThat(r.floatFractionOfPeak()).isCloseTo(0.0025, within(1e-12));
    assertThat(r.floatBatchGflops()).isCloseTo(0.4, within(1e-12));
    // 4 · 1,000 · 100 bytes in 2 ms = 0.2 GB/s.
    assertThat(r.floatGigabytesPerSecond()).isCloseTo(0.2, within(1e-12));
  }

  @Test
  void theHnswSpeedUpIsReadAtTheSmallestBeamReachingTheTargetRecall() {
    HnswCurve curve =
        new HnswCurve(
            "float",
            1.0,
            List.of(
                new HnswPoint(80, 0.4, 0.99),
                new HnswPoint(10, 0.1, 0.80),
                new HnswPoint(40, 0.25, 0.95),
                new HnswPoint(20, 0.2, 0.94)));
    assertThat(curve.firstAtTargetRecall().beamWidth()).isEqualTo(40);
    assertThat(result(2.0, 1, 1, curve).hnswSpeedup(curve)).isCloseTo(8.0, within(1e-12));
    HnswCurve never = new HnswCurve("int8", 1.0, List.of(new HnswPoint(10, 0.1, 0.949)));
    assertThat(never.firstAtTargetRecall()).isNull();
    assertThat(result(2.0, 1, 1, never).hnswSpeedup(never)).isNaN();
  }

  @Test
  void theRescoreSpeedUpIsReadAtTheSmallestDepthReachingTheTargetRecall() {
    RescoreCurve curve =
        new RescoreCurve(
            "int8",
            List.of(
                new ShortlistPoint(1000, 0.8, 0.99),
                new ShortlistPoint(100, 0.4, 0.90),
                new ShortlistPoint(400, 0.5, 0.96)));
    assertThat(curve.firstAtTargetRecall().depth()).isEqualTo(400);
    assertThat(result(2.0, 1, 1, null).rescoreSpeedup(curve)).isCloseTo(4.0, within(1e-12));
    RescoreCurve never = new RescoreCurve("binary", List.of(new ShortlistPoint(100, 0.1, 0.5)));
    assertThat(result(2.0, 1, 1, null).rescoreSpeedup(never)).isNaN();
  }

  @Test
  void recallIsTheShareOfTheTrueTopFound() {
    List<OrdinalHit> found =
        List.of(new OrdinalHit(3, 1), new OrdinalHit(9, 1), new OrdinalHit(4, 0));
    assertThat(IndexScalingBenchmark.recall(Set.of(3, 4, 5, 6), found)).isEqualTo(0.5);
    assertThat(IndexScalingBenchmark.recall(Set.of(), found)).isEqualTo(1.0);
    assertThat(IndexScalingBenchmark.recall(Set.of(7), List.of())).isEqualTo(0.0);
  }

  @Test
  void syntheticVectorsAreUnitLengthAndTheSameForTheSameSeed() {
    Config config = config(List.of(100), 0);
    var a = new IndexScalingBenchmark.SyntheticVectors(config);
    var b = new IndexScalingBenchmark.SyntheticVectors(config);
    var queries = new IndexScalingBenchmark.SyntheticVectors(config, config.seed() + 1);
    for (int i = 0; i < 20; i++) {
      float[] v = a.next();
      assertThat(b.next()).containsExactly(v);
      double norm = 0;
      for (float x : v) {
        norm += x * x;
      }
      assertThat(norm).isCloseTo(1.0, within(1e-5));
      assertThat(queries.next()).isNotEqualTo(v);
    }
  }

  @Test
  void aTinyRunMeasuresEverySizeWithExactRecallsInRangeAndLeavesNoFiles() throws Exception {
    Path work = Files.createDirectories(dir.resolve("work"));
    Config config =
        new Config(
            List.of(60, 200),
            16,
            3,
            8,
            5,
            60,
            ALL_GRAPHS,
            List.of(10, 40),
            List.of(10, 200),
            4,
            0,
            20,
            work);
    List<SizeResult> heard = new ArrayList<>();
    List<SizeResult> results = new IndexScalingBenchmark().run(config, heard::add);
    assertThat(heard).isEqualTo(results);
    assertThat(results).extracting(SizeResult::size).containsExactly(60, 200);
    SizeResult small = results.get(0);
    assertThat(small.fileBytes()).isEqualTo(60L * 16 * 4);
    assertThat(small.hnsw())
        .extracting(HnswCurve::vectors)
        .containsExactly("float", "int8", "binary");
    for (HnswCurve curve : small.hnsw()) {
      assertThat(curve.points()).extracting(HnswPoint::beamWidth).containsExactly(10, 40);
      for (HnswPoint p : curve.points()) {
        assertThat(p.recallAt10()).isBetween(0.0, 1.0);
      }
    }
    // Beam 40 over 60 vectors re-scores most of them in float: the true top 10 is found.
    assertThat(small.hnsw().get(0).points().get(1).recallAt10()).isEqualTo(1.0);
    assertThat(results.get(1).hnsw()).as("above --hnsw-max-size").isEmpty();
    assertThat(small.int8RescoreRecallAt10()).isBetween(0.0, 1.0);
    assertThat(small.binaryRescoreRecallAt10()).isBetween(0.0, 1.0);
    assertThat(small.floatFractionOfPeak()).isEqualTo(small.floatGflops() / 20);
    for (SizeResult r : results) {
      assertThat(r.rescore()).extracting(RescoreCurve::vectors).containsExactly("int8", "binary");
      for (RescoreCurve curve : r.rescore()) {
        assertThat(curve.points()).extracting(ShortlistPoint::depth).containsExactly(10, 200);
        assertThat(curve.points().get(0).recallAt10()).isBetween(0.0, 1.0);
        // A shortlist of every vector re-scored in float is the exact float search.
        assertThat(curve.points().get(1).recallAt10())
            .as("%s at %d", curve.vectors(), r.size())
            .isEqualTo(1.0);
        assertThat(curve.firstAtTargetRecall()).isNotNull();
        assertThat(r.rescoreSpeedup(curve)).isPositive();
      }
    }
    try (var files = Files.list(work)) {
      assertThat(files).isEmpty();
    }
    String svg = ScalingPlot.svg(results, "tiny");
    assertThat(svg).startsWith("<svg").contains("float scan", "HNSW int8", "</svg>");
    assertThat(ScalingPlot.series(results).get("float scan")).hasSize(2);
  }

  @Test
  void onlyTheNamedGraphsAreBuiltInFloatInt8BinaryOrder() throws Exception {
    Path work = Files.createDirectories(dir.resolve("graphs"));
    Config config =
        new Config(
            List.of(60),
            16,
            3,
            8,
            5,
            60,
            Set.of(Quantization.BINARY, Quantization.INT8),
            List.of(10),
            List.of(),
            4,
            0,
            20,
            work);
    List<SizeResult> results = new IndexScalingBenchmark().run(config, r -> {});
    assertThat(results.getFirst().hnsw())
        .extracting(HnswCurve::vectors)
        .containsExactly("int8", "binary");
  }

  @Test
  void shardedGraphsMergeToTheWholeCollectionsExactTopTenWhenTheBeamCoversEveryVector()
      throws Exception {
    Path work = Files.createDirectories(dir.resolve("shards"));
    Config config =
        new Config(
            List.of(150),
            16,
            3,
            8,
            5,
            150,
            Set.of(Quantization.NONE),
            List.of(10, 150),
            List.of(),
            4,
            0,
            Double.NaN,
            work,
            List.of(1, 2, 4));
    SizeResult result = new IndexScalingBenchmark().run(config, r -> {}).getFirst();
    assertThat(result.shardedHnsw()).extracting(ShardedHnswCurve::shards).containsExactly(1, 2, 4);
    for (ShardedHnswCurve curve : result.shardedHnsw()) {
      assertThat(curve.points()).extracting(HnswPoint::beamWidth).containsExactly(10, 150);
      assertThat(curve.points().get(0).recallAt10()).isBetween(0.0, 1.0);
      // A beam of 150 asks each shard's graph for all its vectors: the merge is the exact top 10.
      assertThat(curve.points().get(1).recallAt10()).as("K = %d", curve.shards()).isEqualTo(1.0);
      assertThat(curve.points().get(1).millisPerQuery()).isPositive();
    }
  }

  @Test
  void aShardCountOutsideOneToSixtyFourIsRefused() {
    for (int shards : new int[] {0, 65}) {
      assertThatThrownBy(
              () ->
                  new Config(
                      List.of(100),
                      16,
                      3,
                      8,
                      5,
                      0,
                      ALL_GRAPHS,
                      List.of(),
                      List.of(),
                      4,
                      0,
                      Double.NaN,
                      dir(),
                      List.of(shards)))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("shard count");
    }
  }

  @Test
  void aConfigWithoutSizesOrWithABeamBelowTenIsRefused() {
    assertThatThrownBy(() -> config(List.of(), 0)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> configOf100(ALL_GRAPHS, List.of(5), List.of()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("beam");
    assertThatThrownBy(() -> configOf100(ALL_GRAPHS, List.of(), List.of(9)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("rescore depth");
    assertThatThrownBy(() -> configOf100(Set.of(), List.of(), List.of()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("HNSW graph");
  }

  /** A config of one size of 100 with the given graphs, beams and rescore depths. */
  private static Config configOf100(
      Set<Quantization> graphs, List<Integer> beams, List<Integer> depths) {
    return new Config(List.of(100), 16, 3, 8, 5, 0, graphs, beams, depths, 4, 0, Double.NaN, dir());
  }
}
