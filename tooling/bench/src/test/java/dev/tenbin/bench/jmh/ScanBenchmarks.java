package dev.tenbin.bench.jmh;

import dev.tenbin.core.Cancellation;
import dev.tenbin.index.dense.DenseSearchOptions;
import dev.tenbin.index.dense.DenseSearcher;
import dev.tenbin.index.dense.DotProduct;
import dev.tenbin.index.dense.Quantization;
import dev.tenbin.index.dense.VectorSimilarity;
import dev.tenbin.index.multivector.MaxSimSearcher;
import dev.tenbin.index.multivector.TokenVectors;
import dev.tenbin.index.sparse.ImpactSearcher;
import dev.tenbin.index.sparse.SparseDoc;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.TreeMap;
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
 * JMH benchmarks of the exact scans (run with {@code ./tenbin jmh}): one query's float, int8 and
 * binary scan of a seeded corpus, the raw dot-product kernel (for GFLOP/s), a sparse query per
 * pruning setting, and MaxSim over 1,000 multi-vector documents.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Fork(
    value = 1,
    jvmArgsAppend = {"--add-modules", "jdk.incubator.vector", "-Xss4m"})
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
public class ScanBenchmarks {
  @Param({"100000"})
  int documents;

  static final int DIM = 384;
  DenseSearcher searcher;
  float[] vectors;
  float[] query;
  ImpactSearcher sparse;
  SparseDoc sparseQuery;
  MaxSimSearcher maxSim;
  TokenVectors tokenQuery;

  @Setup
  public void setup() {
    Random random = new Random(42);
    vectors = new float[documents * DIM];
    for (int i = 0; i < vectors.length; i++) {
      vectors[i] = (float) random.nextGaussian();
    }
    searcher = new DenseSearcher(vectors, DIM, IntStream.range(0, documents).toArray());
    query = new float[DIM];
    for (int i = 0; i < DIM; i++) {
      query[i] = (float) random.nextGaussian();
    }
    for (Quantization quantization : Quantization.values()) {
      searcher.search(
          query,
          new DenseSearchOptions(VectorSimilarity.DOT, 0, quantization, false, 100),
          100,
          Cancellation.NEVER);
    }
    List<SparseDoc> docs = new ArrayList<>();
    for (int d = 0; d < 10_000; d++) {
      docs.add(randomSparse(random, 120));
    }
    sparse = new ImpactSearcher(docs, IntStream.range(0, docs.size()).toArray());
    sparseQuery = randomSparse(random, 40);
    List<TokenVectors> multi = new ArrayList<>();
    for (int d = 0; d < 1_000; d++) {
      multi.add(randomTokens(random, 64));
    }
    maxSim = new MaxSimSearcher(multi, 128, IntStream.range(0, multi.size()).toArray());
    tokenQuery = randomTokens(random, 32);
  }

  private static SparseDoc randomSparse(Random random, int active) {
    TreeMap<Integer, Float> entries = new TreeMap<>();
    while (entries.size() < active) {
      entries.put(
          (int) Math.min(30_521, Math.floor(Math.exp(random.nextDouble() * Math.log(30_522)))),
          (float) random.nextDouble() * 3);
    }
    int[] ids = entries.keySet().stream().mapToInt(Integer::intValue).toArray();
    float[] weights = new float[ids.length];
    for (int i = 0; i < ids.length; i++) {
      weights[i] = entries.get(ids[i]);
    }
    return new SparseDoc(ids, weights);
  }

  private static TokenVectors randomTokens(Random random, int tokens) {
    float[] values = new float[tokens * 128];
    for (int i = 0; i < values.length; i++) {
      values[i] = (float) random.nextGaussian();
    }
    return new TokenVectors(tokens, values);
  }

  @Benchmark
  public Object floatScan() {
    return searcher.search(
        query,
        new DenseSearchOptions(VectorSimilarity.DOT, 0, Quantization.NONE, false, 100),
        100,
        Cancellation.NEVER);
  }

  @Benchmark
  public Object int8Scan() {
    return searcher.search(
        query,
        new DenseSearchOptions(VectorSimilarity.DOT, 0, Quantization.INT8, false, 100),
        100,
        Cancellation.NEVER);
  }

  @Benchmark
  public Object binaryScan() {
    return searcher.search(
        query,
        new DenseSearchOptions(VectorSimilarity.DOT, 0, Quantization.BINARY, false, 100),
        100,
        Cancellation.NEVER);
  }

  /** The dot-product kernel alone over the corpus, single thread: 2 × documents × 384 FLOP. */
  @Benchmark
  public float dotKernel() {
    float sum = 0;
    for (int d = 0; d < documents; d++) {
      sum += DotProduct.dot(query, vectors, d * DIM, DIM);
    }
    return sum;
  }

  @Benchmark
  public Object sparseFull() {
    return sparse.search(sparseQuery, 0, 0, 100, Cancellation.NEVER);
  }

  @Benchmark
  public Object sparseQ16D128() {
    return sparse.search(sparseQuery, 16, 128, 100, Cancellation.NEVER);
  }

  @Benchmark
  public Object maxSim1000Docs() {
    return maxSim.search(tokenQuery, 100, Cancellation.NEVER);
  }
}
