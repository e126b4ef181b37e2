package dev.tenbin.index.dense;

/** How a dense query is compared with a document. */
public enum VectorSimilarity {
  /** Dot product of L2-normalised (and, when truncated, re-normalised) vectors. */
  COSINE,
  /** Raw dot product. */
  DOT
}
