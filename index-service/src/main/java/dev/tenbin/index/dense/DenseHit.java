package dev.tenbin.index.dense;

/** A document ordinal and its FP32 score. */
public record DenseHit(int ordinal, float score) {}
