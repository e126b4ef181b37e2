package dev.tenbin.bench.index;

import dev.tenbin.client.index.ShardedCollection;
import dev.tenbin.core.Cancellation;
import dev.tenbin.index.dense.DenseSearchOptions;
import dev.tenbin.index.dense.DenseSearchResult;
import dev.tenbin.index.dense.DenseSearcher;
import dev.tenbin.index.dense.DenseVectorStore;
import dev.tenbin.index.dense.Quantization;
import dev.tenbin.index.dense.StoredVectors;
import dev.tenbin.index.dense.VectorSimilarity;
import dev.tenbin.index.rank.OrdinalHit;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.stream.IntStream;
import java.util.stream.Stream;

/**
 * How the dense index's costs grow with the collection, side by side in one run per size: seeded
 * synthetic vectors are ingested through the service's own store ({@link DenseVectorStore}, append
 * and commit in batches) and searched through its own searcher over the store's memory mapping
 * ({@link DenseSearcher} over {@link DenseVectorStore#mapped()}), the same path an index collection
 * takes.
 *
 * <p>Per size it reports: ingest vectors/s (append + commit, fsync included; generating the vectors
 * is not timed), file bytes, the process's memory (RSS split into file-backed pages, the mapped
 * vectors, and anonymous ones, the heap among them; heap used after a GC), the exact float scan per
 * query alone and in a batch (GFLOP/s, and as a fraction of the agreed peak, {@link FmaPeak}; GB/s
 * read), the int8 and binary scans and their float re-scored recall@10, and Lucene's HNSW graph
 * (over floats, int8 codes and ±1 sign bytes, the latter two re-scored in float) per beam width:
 * build seconds, latency, recall@10 against the exact float top 10, and the speed-up over the exact
 * float scan at the smallest beam whose recall@10 reaches {@value #TARGET_RECALL}. With shard
 * counts given, the float vectors are also split into that many shards with a graph each, and the
 * shards' merged top 10 is measured per beam against the whole collection's exact top 10 ({@link
 * ShardedHnsw}).
 *
 * <h2>Data</h2>
 *
 * A mixture of {@code clusters} Gaussians, normalised (so dot is cosine): centroid values N(0,
 * 1/d); noise in dimension i is N(0, σᵢ²) with σᵢ² ∝ 1 / (1 + i/4), scaled so the noise has unit
 * expected norm like the centroid. The decaying spectrum gives the data an effective dimensionality
 * of about 85 of 384 (real sentence embeddings are anisotropic too), so HNSW is neither handed
 * uniform clusters nor the hopeless isotropic case. Queries are fresh draws from the same mixture.
 * Vector j is the same in every size (one stream per seed), so a larger collection contains the
 * smaller ones.
 */
public final class IndexScalingBenchmark {
  /** The recall@10 the HNSW speed-up is read at. */
  public static final double TARGET_RECALL = 0.95;

  static final int K = 10;
  private static final int INGEST_BATCH = 10_000;
  private static final double NOISE_DECAY_DIMS = 4;

  /**
   * What to measure.
   *
   * @param sizes collection sizes, each measured in turn
   * @param hnswMaxSize the largest size whose HNSW graphs are built (a graph over 1M vectors takes
   *     long on a small machine)
   * @param hnswGraphs which graphs are built there (over float, int8 or binary vectors), in that
   *     order whatever the order given; not empty
   * @param beamWidths HNSW search beams (the candidates asked of the graph before the top 10 is
   *     taken)
   * @param rescoreDepths shortlist depths of the int8 and binary scans re-scored in float, each
   *     timed with its recall@10 (empty: none beyond the fixed depth of 100 every size reports)
   * @param batchQueries queries of the batched float scan
   * @param minSeconds each latency is timed over whole passes of the queries until this long
   * @param peakGflops the JMH {@code fmaPeak} figure ({@link FmaPeak}), or NaN
   * @param workDirectory where the vector stores are written (each deleted after its size)
   * @param hnswShards shard counts whose float graphs (one per shard, up to {@code hnswMaxSize})
   *     are measured by their merged top 10 ({@link ShardedHnsw}); empty: none
   */
  public record Config(
      List<Integer> sizes,
      int dimension,
      long seed,
      int queries,
      int clusters,
      int hnswMaxSize,
      Set<Quantization> hnswGraphs,
      List<Integer> beamWidths,
      List<Integer> rescoreDepths,
      int batchQueries,
      double minSeconds,
      double peakGflops,
      Path workDirectory,
      List<Integer> hnswShards) {
    public Config {
      sizes = List.copyOf(sizes);
      hnswShards = List.copyOf(hnswShards);
      if (hnswShards.stream().anyMatch(n -> n < 1 || n > ShardedCollection.MAX_SHARDS)) {
        throw new IllegalArgumentException(
            "each shard count must be within 1.." + ShardedCollection.MAX_SHARDS);
      }
      hnswGraphs = Set.copyOf(hnswGraphs);
      beamWidths = List.copyOf(beamWidths);
      rescoreDepths = List.copyOf(rescoreDepths);
      if (sizes.isEmpty() || sizes.stream().anyMatch(n -> n < K)) {
        throw new IllegalArgumentException("sizes must be given and each at least " + K);
      }
      if (dimension < 1 || queries < 1 || clusters < 1 || batchQueries < 1) {
        throw new IllegalArgumentException(
            "dimension, queries, clusters and batch queries must be positive");
      }
      if (hnswGraphs.isEmpty()) {
        throw new IllegalArgumentException("at least one HNSW graph must be named");
      }
      if (beamWidths.stream().anyMatch(b -> b < K)) {
        throw new IllegalArgumentException("each beam width must be at least " + K);
      }
      if (rescoreDepths.stream().anyMatch(d -> d < K)) {
        throw new IllegalArgumentException("each rescore depth must be at least " + K);
      }
    }

    /** Without sharded graphs. */
    public Config(
        List<Integer> sizes,
        int dimension,
        long seed,
        int queries,
        int clusters,
        int hnswMaxSize,
        Set<Quantization> hnswGraphs,
        List<Integer> beamWidths,
        List<Integer> rescoreDepths,
        int batchQueries,
        double minSeconds,
        double peakGflops,
        Path workDirectory) {
      this(
          sizes,
          dimension,
          seed,
          queries,
          clusters,
          hnswMaxSize,
          hnswGraphs,
          beamWidths,
          rescoreDepths,
          batchQueries,
          minSeconds,
          peakGflops,
          workDirectory,
          List.of());
    }
  }

  /**
   * The graphs named {@code float}, {@code int8} or {@code binary} (the CLI's {@code
   * --hnsw-graphs}).
   *
   * @throws IllegalArgumentException naming a value that is none of them
   */
  public static Set<Quantization> graphsNamed(List<String> names) {
    Set<Quantization> graphs = new HashSet<>();
    for (String name : names) {
      graphs.add(
          switch (name.strip()) {
            case "float" -> Quantization.NONE;
            case "int8" -> Quantization.INT8;
            case "binary" -> Quantization.BINARY;
            default ->
                throw new IllegalArgumentException(
                    "--hnsw-graphs: '" + name + "' is not float, int8 or binary");
          });
    }
    return graphs;
  }

  /** The process's memory at one moment, in bytes (from /proc/self/status; -1 where absent). */
  public record Memory(long rss, long peakRss, long rssFile, long rssAnon, long heapUsed) {
    static Memory now() {
      System.gc();
      Runtime runtime = Runtime.getRuntime();
      long heap = runtime.totalMemory() - runtime.freeMemory();
      long rss = -1;
      long hwm = -1;
      long file = -1;
      long anon = -1;
      try {
        for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
          String[] parts = line.split("\\s+");
          if (parts.length < 2) {
            continue;
          }
          long bytes =
              parts.length > 2 && parts[2].equals("kB") ? Long.parseLong(parts[1]) * 1024 : -1;
          switch (parts[0]) {
            case "VmRSS:" -> rss = bytes;
            case "VmHWM:" -> hwm = bytes;
            case "RssFile:" -> file = bytes;
            case "RssAnon:" -> anon = bytes;
            default -> {}
          }
        }
      } catch (IOException | NumberFormatException e) {
        // Not Linux: only the heap is known.
      }
      return new Memory(rss, hwm, file, anon, heap);
    }
  }

  /** One beam width of an HNSW graph. */
  public record HnswPoint(int beamWidth, double millisPerQuery, double recallAt10) {}

  /**
   * Lucene's HNSW graph over one form of the vectors.
   *
   * @param vectors {@code float}, {@code int8} or {@code binary}
   */
  public record HnswCurve(String vectors, double buildSeconds, List<HnswPoint> points) {
    /** The smallest beam whose recall@10 reaches {@link #TARGET_RECALL}, or null. */
    public HnswPoint firstAtTargetRecall() {
      return points.stream()
          .filter(p -> p.recallAt10() >= TARGET_RECALL)
          .min(Comparator.comparingInt(HnswPoint::beamWidth))
          .orElse(null);
    }
  }

  /**
   * The float graphs of a collection split into {@code shards} shards, one graph per shard, each
   * point's recall@10 that of the shards' merged top 10 against the whole collection's exact float
   * top 10 ({@link ShardedHnsw}).
   *
   * @param buildSeconds all the shards' graphs, built one after another
   */
  public record ShardedHnswCurve(int shards, double buildSeconds, List<HnswPoint> points) {}

  /** One shortlist depth of a quantized scan re-scored in float. */
  public record ShortlistPoint(int depth, double millisPerQuery, double recallAt10) {}

  /**
   * A quantized scan ({@code int8} or {@code binary}) whose top {@code depth} is re-scored in
   * float, per depth.
   */
  public record RescoreCurve(String vectors, List<ShortlistPoint> points) {
    /** The smallest depth whose recall@10 reaches {@link #TARGET_RECALL}, or null. */
    public ShortlistPoint firstAtTargetRecall() {
      return points.stream()
          .filter(p -> p.recallAt10() >= TARGET_RECALL)
          .min(Comparator.comparingInt(ShortlistPoint::depth))
          .orElse(null);
    }
  }

  /** The figures of one collection size. */
  public record SizeResult(
      int size,
      int dimension,
      long fileBytes,
      double ingestVectorsPerSecond,
      Memory afterScans,
      Memory afterHnsw,
      double floatMillisPerQuery,
      double floatBatchMillisPerQuery,
      double int8MillisPerQuery,
      double binaryMillisPerQuery,
      double int8RescoreMillisPerQuery,
      double binaryRescoreMillisPerQuery,
      double int8RescoreRecallAt10,
      double binaryRescoreRecallAt10,
      double peakGflops,
      List<RescoreCurve> rescore,
      List<HnswCurve> hnsw,
      List<ShardedHnswCurve> shardedHnsw) {
    public SizeResult {
      shardedHnsw = List.copyOf(shardedHnsw);
    }

    /** FLOP of one query's float scan: a multiply and an add per stored value. */
    double flopPerQuery() {
      return 2.0 * size * dimension;
    }

    public double floatGflops() {
      return flopPerQuery() / (floatMillisPerQuery * 1e6);
    }

    public double floatBatchGflops() {
      return flopPerQuery() / (floatBatchMillisPerQuery * 1e6);
    }

    public double floatFractionOfPeak() {
      return floatGflops() / peakGflops;
    }

    public double floatBatchFractionOfPeak() {
      return floatBatchGflops() / peakGflops;
    }

    /** GB/s of stored floats read by one query's scan. */
    public double floatGigabytesPerSecond() {
      return 4.0 * size * dimension / (floatMillisPerQuery * 1e6);
    }

    public double int8Speedup() {
      return floatMillisPerQuery / int8MillisPerQuery;
    }

    public double binarySpeedup() {
      return floatMillisPerQuery / binaryMillisPerQuery;
    }

    /**
     * Exact float latency over the re-scored scan's latency at the smallest depth reaching {@link
     * #TARGET_RECALL}; NaN when no depth does.
     */
    public double rescoreSpeedup(RescoreCurve curve) {
      ShortlistPoint point = curve.firstAtTargetRecall();
      return point == null ? Double.NaN : floatMillisPerQuery / point.millisPerQuery();
    }

    /**
     * Exact float latency over the HNSW latency at the smallest beam reaching {@link
     * #TARGET_RECALL}; NaN when no beam does.
     */
    public double hnswSpeedup(HnswCurve curve) {
      HnswPoint point = curve.firstAtTargetRecall();
      return point == null ? Double.NaN : floatMillisPerQuery / point.millisPerQuery();
    }
  }

  /** Runs every size in turn; {@code progress} hears each finished size. */
  public List<SizeResult> run(Config config, Consumer<SizeResult> progress) {
    List<SizeResult> results = new ArrayList<>();
    List<float[]> queries = queries(config);
    for (int size : config.sizes()) {
      SizeResult result = runSize(config, size, queries);
      progress.accept(result);
      results.add(result);
    }
    return results;
  }

  private SizeResult runSize(Config config, int size, List<float[]> queries) {
    Path directory = config.workDirectory().resolve("dense-" + size);
    deleteRecursively(directory);
    try (DenseVectorStore store = DenseVectorStore.open(directory, config.dimension())) {
      double ingestRate = ingest(config, size, store);
      DenseSearcher searcher =
          new DenseSearcher(store.mapped(), IntStream.range(0, size).toArray());
      return measure(
          config, size, store.bytesOnDisk(), ingestRate, store.mapped(), searcher, queries);
    } finally {
      deleteRecursively(directory);
    }
  }

  private SizeResult measure(
      Config config,
      int size,
      long fileBytes,
      double ingestRate,
      StoredVectors vectors,
      DenseSearcher searcher,
      List<float[]> queries) {
    DenseSearchOptions exact = options(Quantization.NONE, false, 0, false);
    List<Set<Integer>> truth = new ArrayList<>();
    for (float[] q : queries) {
      truth.add(ordinals(searcher.search(q, exact, K, Cancellation.NEVER).hits()));
    }
    double floatMs = millisPerQuery(config, searcher, queries, exact);
    List<float[]> batch = new ArrayList<>();
    for (int i = 0; i < config.batchQueries(); i++) {
      batch.add(queries.get(i % queries.size()));
    }
    double batchMs =
        timeMillis(
                config.minSeconds(),
                () -> searcher.searchBatch(batch, exact, K, Cancellation.NEVER))
            / batch.size();
    DenseSearchOptions int8 = options(Quantization.INT8, false, 0, false);
    DenseSearchOptions binary = options(Quantization.BINARY, false, 0, false);
    DenseSearchOptions int8Rescore = options(Quantization.INT8, true, 100, false);
    DenseSearchOptions binaryRescore = options(Quantization.BINARY, true, 100, false);
    double int8Ms = millisPerQuery(config, searcher, queries, int8);
    double binaryMs = millisPerQuery(config, searcher, queries, binary);
    double int8RescoreMs = millisPerQuery(config, searcher, queries, int8Rescore);
    double binaryRescoreMs = millisPerQuery(config, searcher, queries, binaryRescore);
    double int8Recall =
        meanRecall(truth, queries, q -> searcher.search(q, int8Rescore, K, Cancellation.NEVER));
    double binaryRecall =
        meanRecall(truth, queries, q -> searcher.search(q, binaryRescore, K, Cancellation.NEVER));
    List<RescoreCurve> rescoreCurves = new ArrayList<>();
    if (!config.rescoreDepths().isEmpty()) {
      for (Quantization quantization : List.of(Quantization.INT8, Quantization.BINARY)) {
        rescoreCurves.add(rescoreCurve(config, searcher, queries, truth, quantization));
      }
    }
    Memory afterScans = Memory.now();
    List<HnswCurve> curves = new ArrayList<>();
    if (size <= config.hnswMaxSize()) {
      for (Quantization quantization : Quantization.values()) {
        if (!config.hnswGraphs().contains(quantization)) {
          continue;
        }
        curves.add(hnsw(config, searcher, queries, truth, quantization));
      }
    }
    List<ShardedHnswCurve> sharded = new ArrayList<>();
    if (size <= config.hnswMaxSize()) {
      for (int shards : config.hnswShards()) {
        sharded.add(ShardedHnsw.measure(config, vectors, shards, queries, truth));
      }
    }
    Memory afterHnsw = curves.isEmpty() && sharded.isEmpty() ? afterScans : Memory.now();
    return new SizeResult(
        size,
        config.dimension(),
        fileBytes,
        ingestRate,
        afterScans,
        afterHnsw,
        floatMs,
        batchMs,
        int8Ms,
        binaryMs,
        int8RescoreMs,
        binaryRescoreMs,
        int8Recall,
        binaryRecall,
        config.peakGflops(),
        rescoreCurves,
        curves,
        sharded);
  }

  private RescoreCurve rescoreCurve(
      Config config,
      DenseSearcher searcher,
      List<float[]> queries,
      List<Set<Integer>> truth,
      Quantization quantization) {
    List<ShortlistPoint> points = new ArrayList<>();
    for (int depth : config.rescoreDepths()) {
      DenseSearchOptions options = options(quantization, true, depth, false);
      double recall =
          meanRecall(truth, queries, q -> searcher.search(q, options, K, Cancellation.NEVER));
      points.add(
          new ShortlistPoint(depth, millisPerQuery(config, searcher, queries, options), recall));
    }
    return new RescoreCurve(quantization == Quantization.INT8 ? "int8" : "binary", points);
  }

  private HnswCurve hnsw(
      Config config,
      DenseSearcher searcher,
      List<float[]> queries,
      List<Set<Integer>> truth,
      Quantization quantization) {
    boolean rescore = quantization != Quantization.NONE;
    int firstBeam = config.beamWidths().getFirst();
    long start = System.nanoTime();
    // The first approximate search builds the graph.
    searcher.searchApproximateOnly(
        queries.getFirst(), options(quantization, rescore, firstBeam, true), K, Cancellation.NEVER);
    double buildSeconds = (System.nanoTime() - start) / 1e9;
    List<HnswPoint> points = new ArrayList<>();
    for (int beam : config.beamWidths()) {
      DenseSearchOptions options = options(quantization, rescore, beam, true);
      double recall =
          meanRecall(
              truth,
              queries,
              q -> searcher.searchApproximateOnly(q, options, K, Cancellation.NEVER));
      double ms =
          timeMillis(
                  config.minSeconds(),
                  () -> {
                    for (float[] q : queries) {
                      searcher.searchApproximateOnly(q, options, K, Cancellation.NEVER);
                    }
                  })
              / queries.size();
      points.add(new HnswPoint(beam, ms, recall));
    }
    String name =
        switch (quantization) {
          case NONE -> "float";
          case INT8 -> "int8";
          case BINARY -> "binary";
        };
    return new HnswCurve(name, buildSeconds, points);
  }

  /** The float graph's search with {@code beam} candidates asked of it. */
  static DenseSearchOptions hnswOptions(int beam) {
    return options(Quantization.NONE, false, beam, true);
  }

  private static DenseSearchOptions options(
      Quantization quantization, boolean rescore, int depth, boolean approximate) {
    return new DenseSearchOptions(
        VectorSimilarity.DOT, 0, quantization, rescore, depth, approximate);
  }

  private static double millisPerQuery(
      Config config, DenseSearcher searcher, List<float[]> queries, DenseSearchOptions options) {
    return timeMillis(
            config.minSeconds(),
            () -> {
              for (float[] q : queries) {
                searcher.search(q, options, K, Cancellation.NEVER);
              }
            })
        / queries.size();
  }

  /** Milliseconds per run of {@code work}: one warm-up run, then runs until {@code minSeconds}. */
  static double timeMillis(double minSeconds, Runnable work) {
    work.run();
    long start = System.nanoTime();
    int runs = 0;
    long elapsed;
    do {
      work.run();
      runs++;
      elapsed = System.nanoTime() - start;
    } while (elapsed < minSeconds * 1e9);
    return elapsed / 1e6 / runs;
  }

  /** Mean over queries of |found ∩ truth| / |truth| (1 for a query whose truth is empty). */
  static double meanRecall(
      List<Set<Integer>> truth,
      List<float[]> queries,
      Function<float[], DenseSearchResult> search) {
    double sum = 0;
    for (int i = 0; i < queries.size(); i++) {
      sum += recall(truth.get(i), search.apply(queries.get(i)).hits());
    }
    return sum / queries.size();
  }

  /** |found ∩ truth| / |truth|; 1 when the truth is empty. */
  static double recall(Set<Integer> truth, List<OrdinalHit> found) {
    if (truth.isEmpty()) {
      return 1.0;
    }
    long hits = found.stream().filter(h -> truth.contains(h.ordinal())).count();
    return (double) hits / truth.size();
  }

  private static Set<Integer> ordinals(List<OrdinalHit> hits) {
    Set<Integer> out = new HashSet<>();
    hits.forEach(h -> out.add(h.ordinal()));
    return out;
  }

  /** Appends and commits the first {@code size} vectors in batches; returns vectors/s. */
  private static double ingest(Config config, int size, DenseVectorStore store) {
    SyntheticVectors vectors = new SyntheticVectors(config);
    long nanos = 0;
    for (int from = 0; from < size; from += INGEST_BATCH) {
      List<float[]> batch = new ArrayList<>();
      for (int i = from; i < Math.min(size, from + INGEST_BATCH); i++) {
        batch.add(vectors.next());
      }
      long start = System.nanoTime();
      store.append(batch);
      store.commit();
      nanos += System.nanoTime() - start;
    }
    return size / (nanos / 1e9);
  }

  private static List<float[]> queries(Config config) {
    SyntheticVectors stream = new SyntheticVectors(config, config.seed() + 1);
    List<float[]> out = new ArrayList<>();
    for (int i = 0; i < config.queries(); i++) {
      out.add(stream.next());
    }
    return out;
  }

  /** The seeded mixture of the class comment: documents from the seed, queries from seed + 1. */
  static final class SyntheticVectors {
    private final float[][] centroids;
    private final float[] noiseScale;
    private final SplittableRandom random;

    SyntheticVectors(Config config) {
      this(config, config.seed());
    }

    SyntheticVectors(Config config, long streamSeed) {
      int dims = config.dimension();
      SplittableRandom centroidRandom = new SplittableRandom(config.seed() ^ 0x9E3779B97F4A7C15L);
      centroids = new float[config.clusters()][dims];
      for (float[] centroid : centroids) {
        for (int d = 0; d < dims; d++) {
          centroid[d] = (float) (centroidRandom.nextGaussian() / Math.sqrt(dims));
        }
      }
      noiseScale = new float[dims];
      double total = 0;
      for (int d = 0; d < dims; d++) {
        total += 1 / (1 + d / NOISE_DECAY_DIMS);
      }
      for (int d = 0; d < dims; d++) {
        noiseScale[d] = (float) Math.sqrt(1 / (1 + d / NOISE_DECAY_DIMS) / total);
      }
      random = new SplittableRandom(streamSeed);
    }

    float[] next() {
      float[] centroid = centroids[random.nextInt(centroids.length)];
      float[] v = new float[centroid.length];
      double norm = 0;
      for (int d = 0; d < v.length; d++) {
        v[d] = centroid[d] + (float) (random.nextGaussian() * noiseScale[d]);
        norm += (double) v[d] * v[d];
      }
      float length = (float) Math.sqrt(norm);
      for (int d = 0; d < v.length; d++) {
        v[d] /= length;
      }
      return v;
    }
  }

  private static void deleteRecursively(Path directory) {
    if (!Files.exists(directory)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(directory)) {
      for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(path);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot delete " + directory, e);
    }
  }
}
