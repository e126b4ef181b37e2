package dev.tenbin.rerank.cross;

/** How a reranker's outputs become a relevance score: cross-encoder heads and retrieval models. */
public enum ScoreHead {
  /** sigmoid(logit) of a [batch, 1] output. */
  SIGMOID,
  /** softmax(logits)[1] of a [batch, 2] output. */
  SOFTMAX2,
  /**
   * softmax over the "yes" and "no" next-token logits at the last real position (LLM rerankers).
   */
  YES_NO,
  /** Cosine of L2-normalised dense vectors: a dense retrieval model ({@code dense:MODEL}). */
  COSINE,
  /** Dot product of learned sparse vectors ({@code sparse:MODEL}). */
  SPARSE_DOT,
  /** MaxSim over token vectors ({@code multivector:MODEL}). */
  MAX_SIM
}
