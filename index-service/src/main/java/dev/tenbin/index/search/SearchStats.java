package dev.tenbin.index.search;

/**
 * Facts about one search: its time inside the collection, and for dense variants the int8 query
 * values clipped to the corpus range (of all values), the bytes per stored vector, and for
 * approximate (HNSW) searches the mean recall of the approximate top-k against the exact top-k (0
 * otherwise).
 */
public record SearchStats(
    long searchNanos,
    long clippedQueryValues,
    long queryValues,
    long bytesPerVector,
    double approximateRecall) {
  /** Time only (BM25, sparse, late interaction, every rescore). */
  public static SearchStats timed(long searchNanos) {
    return new SearchStats(searchNanos, 0, 0, 0, 0);
  }
}
