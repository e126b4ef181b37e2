package dev.tenbin.rerank.cross;

/** How a cross-encoder's logits become a relevance score. */
public enum ScoreHead {
  /** sigmoid(logit) of a [batch, 1] output. */
  SIGMOID,
  /** softmax(logits)[1] of a [batch, 2] output. */
  SOFTMAX2,
  /**
   * softmax over the "yes" and "no" next-token logits at the last real position (LLM rerankers).
   */
  YES_NO
}
