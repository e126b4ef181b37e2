package dev.tenbin.index.dense;

import dev.tenbin.index.rank.OrdinalHit;
import java.util.List;

/**
 * Hits of one dense search and facts about it.
 *
 * @param hits final order: score descending, then doc id ascending
 * @param clippedQueryValues int8: query values outside the corpus range, clipped; 0 otherwise
 * @param saturatedQueryValues int8: query values at an end code (−128 or 127), the clipped ones
 *     among them; 0 otherwise
 * @param queryValues values in the query (after truncation)
 * @param bytesPerVector scanned bytes: what the first stage reads per document vector (the float
 *     vectors a rescore reads for its shortlist are not counted)
 * @param storedBytesPerVector stored bytes per document vector: the first stage's plus, for a
 *     rescore of a quantized variant, the float vectors ({@link
 *     DenseSearchOptions#storedBytesPerVector})
 * @param approximateRecall for HNSW searches, |approximate top-k ∩ exact top-k| / |exact top-k|;
 *     NaN otherwise
 * @param exactHits for HNSW searches measured against the exact scan, that scan's hits (the
 *     reference of {@code approximateRecall}, in its order); empty otherwise
 */
public record DenseSearchResult(
    List<OrdinalHit> hits,
    int clippedQueryValues,
    int saturatedQueryValues,
    int queryValues,
    long bytesPerVector,
    long storedBytesPerVector,
    double approximateRecall,
    List<OrdinalHit> exactHits) {
  public DenseSearchResult {
    hits = List.copyOf(hits);
    exactHits = List.copyOf(exactHits);
  }

  /** A result without an exact reference (every search but a measured approximate one). */
  public DenseSearchResult(
      List<OrdinalHit> hits,
      int clippedQueryValues,
      int saturatedQueryValues,
      int queryValues,
      long bytesPerVector,
      long storedBytesPerVector,
      double approximateRecall) {
    this(
        hits,
        clippedQueryValues,
        saturatedQueryValues,
        queryValues,
        bytesPerVector,
        storedBytesPerVector,
        approximateRecall,
        List.of());
  }
}
