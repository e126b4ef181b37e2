package dev.tenbin.model.card;

/** What a model produces. */
public enum OutputKind {
  DENSE,
  /** Learned sparse vectors from an MLM head: log(1 + ReLU(logits)) max-pooled over tokens. */
  SPARSE,
  /** Per-token vectors for late interaction. */
  MULTIVECTOR
}
