package dev.tenbin.rerank.cross;

/** Whether scores are computed in FP32 (high-precision scoring) or in the model's own dtype. */
public enum ScorePrecision {
  /** Logits upcast to FP32 before the score function: the default. */
  FP32,
  /**
   * Logits and score rounded to the model's dtype (FP16 for half models), as a pipeline that never
   * upcasts would compute them; used to measure how many ties low precision creates.
   */
  MODEL_DTYPE
}
