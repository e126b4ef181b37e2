package dev.tenbin.index.collection;

/** A document of a ranking: id and FP32 score. */
public record ScoredHit(String docId, float score) {}
