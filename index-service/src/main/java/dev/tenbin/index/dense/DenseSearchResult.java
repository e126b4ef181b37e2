package dev.tenbin.index.dense;

import dev.tenbin.index.rank.OrdinalHit;
import java.util.List;

/**
 * Hits of one dense search and facts about it.
 *
 * @param hits final order: score descending, then doc id ascending
 * @param clippedQueryValues int8: query values outside the corpus range, clipped; 0 otherwise
 * @param queryValues values in the query (after truncation)
 * @param bytesPerVector bytes per stored vector in the scanned variant (the float vectors a rescore
 *     reads for its shortlist are not counted)
 * @param approximateRecall for HNSW searches, |approximate top-k ∩ exact top-k| / |exact top-k|;
 *     NaN otherwise
 */
public record DenseSearchResult(
    List<OrdinalHit> hits,
    int clippedQueryValues,
    int queryValues,
    long bytesPerVector,
    double approximateRecall) {
  public DenseSearchResult {
    hits = List.copyOf(hits);
  }

  public DenseSearchResult(
      List<OrdinalHit> hits, int clippedQueryValues, int queryValues, long bytesPerVector) {
    this(hits, clippedQueryValues, queryValues, bytesPerVector, Double.NaN);
  }
}
