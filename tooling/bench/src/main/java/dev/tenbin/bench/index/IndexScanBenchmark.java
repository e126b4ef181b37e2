package dev.tenbin.bench.index;

import dev.tenbin.core.Cancellation;
import dev.tenbin.index.dense.DenseSearchOptions;
import dev.tenbin.index.dense.DenseSearcher;
import dev.tenbin.index.dense.Quantization;
import dev.tenbin.index.dense.VectorSimilarity;
import dev.tenbin.index.multivector.MaxSimSearcher;
import dev.tenbin.index.multivector.TokenVectors;
import dev.tenbin.index.sparse.ImpactSearcher;
import dev.tenbin.index.sparse.SparseDoc;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.stream.IntStream;

/**
 * Scan speeds of the index's exact searchers on seeded synthetic data, side by side in one run:
 * float scan GFLOP/s as a fraction of the agreed peak ({@link FmaPeak}, measured by JMH and given
 * here; NaN when not given), int8 and binary scan speed-ups over float, sparse queries/s per
 * pruning setting, and MaxSim documents/s.
 */
public final class IndexScanBenchmark {
  /** The figures. */
  public record Result(
      int documents,
      int dimension,
      double floatScanGflops,
      double peakGflops,
      double floatMillisPerQuery,
      double int8MillisPerQuery,
      double binaryMillisPerQuery,
      Map<String, Double> sparseQueriesPerSecond,
      double maxSimDocumentsPerSecond) {
    public double int8Speedup() {
      return floatMillisPerQuery / int8MillisPerQuery;
    }

    public double binarySpeedup() {
      return floatMillisPerQuery / binaryMillisPerQuery;
    }

    public double fractionOfPeak() {
      return floatScanGflops / peakGflops;
    }
  }

  /**
   * @param peakGflops the JMH {@code fmaPeak} figure of this machine ({@link FmaPeak}), or NaN
   */
  public Result run(int documents, int dimension, int queries, double peakGflops) {
    Random random = new Random(42);
    float[] vectors = new float[documents * dimension];
    for (int i = 0; i < vectors.length; i++) {
      vectors[i] = (float) random.nextGaussian();
    }
    int[] idOrder = IntStream.range(0, documents).toArray();
    DenseSearcher searcher = new DenseSearcher(vectors, dimension, idOrder);
    List<float[]> qs = new ArrayList<>();
    for (int q = 0; q < queries; q++) {
      float[] query = new float[dimension];
      for (int i = 0; i < dimension; i++) {
        query[i] = (float) random.nextGaussian();
      }
      qs.add(query);
    }
    double floatMs = millisPerQuery(searcher, qs, Quantization.NONE);
    double int8Ms = millisPerQuery(searcher, qs, Quantization.INT8);
    double binaryMs = millisPerQuery(searcher, qs, Quantization.BINARY);
    double gflops = 2.0 * documents * dimension / (floatMs * 1e6);
    return new Result(
        documents,
        dimension,
        gflops,
        peakGflops,
        floatMs,
        int8Ms,
        binaryMs,
        sparse(random),
        maxSim(random));
  }

  private static double millisPerQuery(
      DenseSearcher searcher, List<float[]> queries, Quantization quantization) {
    DenseSearchOptions options =
        new DenseSearchOptions(VectorSimilarity.DOT, 0, quantization, false, 100);
    for (int warm = 0; warm < 3; warm++) {
      for (float[] q : queries) {
        searcher.search(q, options, 100, Cancellation.NEVER);
      }
    }
    long start = System.nanoTime();
    int passes = 5;
    for (int pass = 0; pass < passes; pass++) {
      for (float[] q : queries) {
        searcher.search(q, options, 100, Cancellation.NEVER);
      }
    }
    return (System.nanoTime() - start) / 1e6 / (passes * queries.size());
  }

  private static Map<String, Double> sparse(Random random) {
    int vocabulary = 30_522;
    List<SparseDoc> docs = new ArrayList<>();
    for (int d = 0; d < 10_000; d++) {
      docs.add(randomSparse(random, vocabulary, 120));
    }
    ImpactSearcher searcher = new ImpactSearcher(docs, IntStream.range(0, docs.size()).toArray());
    List<SparseDoc> queries = new ArrayList<>();
    for (int q = 0; q < 200; q++) {
      queries.add(randomSparse(random, vocabulary, 40));
    }
    Map<String, Double> qps = new LinkedHashMap<>();
    for (int[] setting : new int[][] {{0, 0}, {8, 64}, {16, 128}, {32, 256}, {32, 512}}) {
      for (SparseDoc q : queries) {
        searcher.search(q, setting[0], setting[1], 100, Cancellation.NEVER);
      }
      long start = System.nanoTime();
      for (SparseDoc q : queries) {
        searcher.search(q, setting[0], setting[1], 100, Cancellation.NEVER);
      }
      String name = setting[0] == 0 ? "base" : "q" + setting[0] + "_d" + setting[1];
      qps.put(name, queries.size() / ((System.nanoTime() - start) / 1e9));
    }
    return qps;
  }

  private static SparseDoc randomSparse(Random random, int vocabulary, int active) {
    TreeMap<Integer, Float> entries = new TreeMap<>();
    while (entries.size() < active) {
      // Zipf-like term choice: small ids are frequent, as in real vocabularies.
      int id =
          (int)
              Math.min(
                  vocabulary - 1, Math.floor(Math.exp(random.nextDouble() * Math.log(vocabulary))));
      entries.put(id, (float) random.nextDouble() * 3);
    }
    int[] ids = entries.keySet().stream().mapToInt(Integer::intValue).toArray();
    float[] weights = new float[ids.length];
    for (int i = 0; i < ids.length; i++) {
      weights[i] = entries.get(ids[i]);
    }
    return new SparseDoc(ids, weights);
  }

  private static double maxSim(Random random) {
    int dimension = 128;
    List<TokenVectors> docs = new ArrayList<>();
    for (int d = 0; d < 1_000; d++) {
      docs.add(randomTokens(random, 64, dimension));
    }
    MaxSimSearcher searcher =
        new MaxSimSearcher(docs, dimension, IntStream.range(0, docs.size()).toArray());
    TokenVectors query = randomTokens(random, 32, dimension);
    searcher.search(query, 100, Cancellation.NEVER);
    long start = System.nanoTime();
    int passes = 5;
    for (int p = 0; p < passes; p++) {
      searcher.search(query, 100, Cancellation.NEVER);
    }
    return passes * docs.size() / ((System.nanoTime() - start) / 1e9);
  }

  private static TokenVectors randomTokens(Random random, int tokens, int dimension) {
    float[] values = new float[tokens * dimension];
    for (int i = 0; i < values.length; i++) {
      values[i] = (float) random.nextGaussian();
    }
    return new TokenVectors(tokens, values);
  }
}
