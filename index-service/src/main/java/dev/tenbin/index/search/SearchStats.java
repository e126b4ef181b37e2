package dev.tenbin.index.search;

import dev.tenbin.index.quantize.Int8Calibration;

/**
 * Facts about one search: its time inside the collection, and for dense variants the int8 query
 * values clipped to the corpus range and those at an end code (of all values), the scanned and
 * stored bytes per vector, for approximate (HNSW) searches the mean recall of the approximate top-k
 * against the exact scan's top-k of the same variant (0 otherwise), and for int8 variants the
 * calibration with the document codes at an end code.
 *
 * @param bytesPerVector scanned bytes: what the first stage reads per document vector
 * @param storedBytesPerVector what the variant keeps per document (quantized plus float for a
 *     rescore)
 * @param int8Calibration the int8 variant's corpus ranges, or null
 * @param saturatedDocumentValues int8: document codes at −128 or 127, of {@code documentValues}
 */
public record SearchStats(
    long searchNanos,
    long clippedQueryValues,
    long saturatedQueryValues,
    long queryValues,
    long bytesPerVector,
    long storedBytesPerVector,
    double approximateRecall,
    Int8Calibration int8Calibration,
    long saturatedDocumentValues,
    long documentValues) {
  /** Time only (BM25, sparse, late interaction, every rescore). */
  public static SearchStats timed(long searchNanos) {
    return new SearchStats(searchNanos, 0, 0, 0, 0, 0, 0, null, 0, 0);
  }
}
