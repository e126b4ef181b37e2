package dev.tenbin.index.dense;

/** A document ordinal (insertion order in the store) and its FP32 score. */
public record DenseHit(int ordinal, float score) {}
