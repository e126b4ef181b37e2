package dev.tenbin.encoder;

/** A learned sparse vector: token ids ascending and their weights. */
public record SparseVector(int[] indices, float[] values) {}
