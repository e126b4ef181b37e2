package dev.tenbin.bench.jmh;

import dev.tenbin.bench.index.FmaPeak;
import dev.tenbin.core.Cancellation;
import dev.tenbin.index.dense.DenseSearchOptions;
import dev.tenbin.index.dense.DenseSearcher;
import dev.tenbin.index.dense.Quantization;
import dev.tenbin.index.dense.VectorSimilarity;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The dense scans side by side on one seeded corpus (N × 384, dot, top-100, all cores), plus the
 * FMA peak they are measured against:
 *
 * <ul>
 *   <li>{@code float|int8|binary}: one query per operation;
 *   <li>{@code float|int8|binaryBatch}: {@value #BATCH} queries per operation through {@link
 *       DenseSearcher#searchBatch} (divide by {@value #BATCH} for a query);
 *   <li>{@code fmaPeak}: the agreed peak ({@link FmaPeak}): 256-bit FMA on operands in registers,
 *       12 independent chains per core, on every core: {@value #PEAK_ROUNDS} rounds per thread per
 *       operation, GFLOP/s = {@link FmaPeak#gflops}(threads, {@value #PEAK_ROUNDS}, µs per
 *       operation) = threads · 3072 · {@value #PEAK_ROUNDS} / (µs · 1000).
 * </ul>
 *
 * GFLOP/s of a float scan = 2 · N · 384 · queries / time; speed-ups are float time / int8 (binary)
 * time. Run: {@code ./tenbin jmh DenseScanBenchmarks -f 1 -wi 3 -i 5 -w 1 -r 1}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Fork(
    value = 1,
    jvmArgsAppend = {"--add-modules", "jdk.incubator.vector", "-Xss4m"})
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
public class DenseScanBenchmarks {
  static final int DIM = 384;
  static final int BATCH = 64;
  static final int K = 100;
  static final int PEAK_ROUNDS = 2_000;

  @Param({"100000"})
  int documents;

  DenseSearcher searcher;
  float[] query;
  List<float[]> batch;
  float[] peakA;
  float[] peakB;
  int threads;

  @Setup
  public void setup() {
    Random random = new Random(42);
    float[] vectors = new float[documents * DIM];
    for (int i = 0; i < vectors.length; i++) {
      vectors[i] = (float) random.nextGaussian();
    }
    searcher = new DenseSearcher(vectors, DIM, IntStream.range(0, documents).toArray());
    batch = new ArrayList<>();
    for (int q = 0; q < BATCH; q++) {
      float[] v = new float[DIM];
      for (int i = 0; i < DIM; i++) {
        v[i] = (float) random.nextGaussian();
      }
      batch.add(v);
    }
    query = batch.get(0);
    for (Quantization quantization : Quantization.values()) {
      searcher.search(
          query, options(quantization), K, Cancellation.NEVER); // builds codes outside the timing
    }
    peakA = new float[FmaPeak.LENGTH];
    peakB = new float[FmaPeak.LENGTH];
    for (int i = 0; i < FmaPeak.LENGTH; i++) {
      peakA[i] = 1e-3f * i;
      peakB[i] = 1e-3f;
    }
    threads = Runtime.getRuntime().availableProcessors();
  }

  private static DenseSearchOptions options(Quantization quantization) {
    return new DenseSearchOptions(VectorSimilarity.DOT, 0, quantization, false, 0);
  }

  @Benchmark
  public Object float1() {
    return searcher.search(query, options(Quantization.NONE), K, Cancellation.NEVER);
  }

  @Benchmark
  public Object int8() {
    return searcher.search(query, options(Quantization.INT8), K, Cancellation.NEVER);
  }

  @Benchmark
  public Object binary() {
    return searcher.search(query, options(Quantization.BINARY), K, Cancellation.NEVER);
  }

  @Benchmark
  public Object floatBatch() {
    return searcher.searchBatch(batch, options(Quantization.NONE), K, Cancellation.NEVER);
  }

  @Benchmark
  public Object int8Batch() {
    return searcher.searchBatch(batch, options(Quantization.INT8), K, Cancellation.NEVER);
  }

  @Benchmark
  public Object binaryBatch() {
    return searcher.searchBatch(batch, options(Quantization.BINARY), K, Cancellation.NEVER);
  }

  @Benchmark
  public double fmaPeak() {
    return IntStream.range(0, threads)
        .parallel()
        .mapToDouble(t -> FmaPeak.kernel(peakA, peakB, PEAK_ROUNDS))
        .sum();
  }
}
