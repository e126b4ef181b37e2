package dev.tenbin.bench.index;

import dev.tenbin.client.index.ShardedCollection;
import dev.tenbin.core.Cancellation;
import dev.tenbin.index.dense.DenseSearchOptions;
import dev.tenbin.index.dense.DenseSearcher;
import dev.tenbin.index.dense.StoredVectors;
import dev.tenbin.index.rank.OrdinalHit;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.stream.IntStream;

/**
 * A collection's float vectors split into {@code K} shards as a sharded collection places them
 * ({@link ShardedCollection#shardOf} of the document id {@code doc-J} of vector J), one HNSW graph
 * per shard, each query's shards' approximate top 10 merged: the merged list's recall@10 against
 * the whole collection's exact float top 10, and queries/s with the shards searched one after
 * another in one thread (the work a query costs, not what parallel shards would add up to).
 */
final class ShardedHnsw {
  private final List<DenseSearcher> searchers = new ArrayList<>();
  private final List<int[]> ordinals = new ArrayList<>();

  /** The shards of {@code vectors}, each searcher over a heap copy of its own rows. */
  ShardedHnsw(StoredVectors vectors, int shards) {
    int dims = vectors.dimension();
    List<List<Integer>> members = new ArrayList<>();
    for (int s = 0; s < shards; s++) {
      members.add(new ArrayList<>());
    }
    for (int j = 0; j < vectors.size(); j++) {
      members.get(ShardedCollection.shardOf("doc-" + j, shards)).add(j);
    }
    float[] row = new float[dims];
    for (List<Integer> shard : members) {
      float[] own = new float[shard.size() * dims];
      int[] global = new int[shard.size()];
      for (int i = 0; i < shard.size(); i++) {
        global[i] = shard.get(i);
        vectors.row(global[i], row);
        System.arraycopy(row, 0, own, i * dims, dims);
      }
      searchers.add(new DenseSearcher(own, dims, IntStream.range(0, global.length).toArray()));
      ordinals.add(global);
    }
  }

  /**
   * The shards' approximate top {@code k} merged: score descending, then vector ordinal ascending,
   * the first {@code k} kept; ordinals are the whole collection's.
   */
  List<OrdinalHit> search(float[] query, DenseSearchOptions options, int k) {
    List<OrdinalHit> all = new ArrayList<>();
    for (int s = 0; s < searchers.size(); s++) {
      int[] global = ordinals.get(s);
      for (OrdinalHit hit :
          searchers.get(s).searchApproximateOnly(query, options, k, Cancellation.NEVER).hits()) {
        all.add(new OrdinalHit(global[hit.ordinal()], hit.score()));
      }
    }
    all.sort(
        Comparator.comparingDouble((OrdinalHit hit) -> hit.score())
            .reversed()
            .thenComparingInt(OrdinalHit::ordinal));
    return all.subList(0, Math.min(k, all.size()));
  }

  /**
   * Builds the graphs (timed) and measures every beam.
   *
   * @param truth each query's exact float top {@link IndexScalingBenchmark#K} of the whole
   *     collection
   */
  static IndexScalingBenchmark.ShardedHnswCurve measure(
      IndexScalingBenchmark.Config config,
      StoredVectors vectors,
      int shards,
      List<float[]> queries,
      List<Set<Integer>> truth) {
    ShardedHnsw sharded = new ShardedHnsw(vectors, shards);
    int k = IndexScalingBenchmark.K;
    long start = System.nanoTime();
    // The first approximate search of each shard builds its graph.
    sharded.search(
        queries.getFirst(), IndexScalingBenchmark.hnswOptions(config.beamWidths().getFirst()), k);
    double buildSeconds = (System.nanoTime() - start) / 1e9;
    List<IndexScalingBenchmark.HnswPoint> points = new ArrayList<>();
    for (int beam : config.beamWidths()) {
      DenseSearchOptions options = IndexScalingBenchmark.hnswOptions(beam);
      double recallSum = 0;
      for (int q = 0; q < queries.size(); q++) {
        recallSum +=
            IndexScalingBenchmark.recall(truth.get(q), sharded.search(queries.get(q), options, k));
      }
      double ms =
          IndexScalingBenchmark.timeMillis(
                  config.minSeconds(),
                  () -> {
                    for (float[] q : queries) {
                      sharded.search(q, options, k);
                    }
                  })
              / queries.size();
      points.add(new IndexScalingBenchmark.HnswPoint(beam, ms, recallSum / queries.size()));
    }
    return new IndexScalingBenchmark.ShardedHnswCurve(shards, buildSeconds, points);
  }
}
