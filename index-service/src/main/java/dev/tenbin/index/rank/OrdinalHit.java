package dev.tenbin.index.rank;

/**
 * A hit inside one searcher's snapshot: the document's ordinal (its position in the collection) and
 * FP32 score. The collection turns ordinals into ids ({@link Hit}) before a ranking leaves it.
 */
public record OrdinalHit(int ordinal, float score) {}
