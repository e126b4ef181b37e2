package dev.tenbin.eval.plan;

import dev.tenbin.eval.retrieval.HybridFusion;
import java.util.List;

/**
 * The settings of a job that families plan and run with, taken from its spec.
 *
 * @param topK ranking depth of every cell
 * @param similarity dense similarity: "cosine", "dot" or "best"
 * @param candidateSets the candidate set kinds rerankers read ("hybrid", "bm25")
 * @param lightHybridFusion how LightRetriever's hybrid fuses its sides: "minmax" or an RRF variant
 *     name ({@link HybridFusion#parse})
 * @param lightHybridDenseWeight the dense side's weight in LightRetriever's hybrid
 * @param latencyConcurrency the queries in flight when a cell's latency is measured concurrently
 *     ({@link dev.tenbin.eval.retrieval.LatencyProbe#concurrent}); a measurement, not part of any
 *     cell's fingerprint
 * @param shards the shards each collection of the job is split into (1: none); the rankings are the
 *     same as with one collection, so it is no part of any cell's fingerprint
 * @param replicas the copies each shard is kept as, on distinct index pods (1: one); the rankings
 *     are the same whichever copy answers, so it is no part of any cell's fingerprint
 */
public record JobSettings(
    int topK,
    String similarity,
    List<String> candidateSets,
    String lightHybridFusion,
    double lightHybridDenseWeight,
    int latencyConcurrency,
    int shards,
    int replicas) {
  public JobSettings {
    candidateSets = List.copyOf(candidateSets);
  }

  /**
   * How LightRetriever's hybrid fuses its sides: {@link #lightHybridFusion} with the dense side
   * weighing {@link #lightHybridDenseWeight} and the sparse side the rest.
   */
  public HybridFusion lightHybrid() {
    HybridFusion fusion = HybridFusion.parse(lightHybridFusion);
    return new HybridFusion(fusion.method(), fusion.k(), lightHybridDenseWeight);
  }
}
