package dev.tenbin.index.search;

/**
 * One query of a {@link SearchRequest}, in the representation of its retrieval family, carrying
 * that family's options. A new family is one more record here and one more case where the
 * collection scores it; the compiler finds every switch that must learn it.
 */
public sealed interface Query permits LexicalQuery, DenseQuery, SparseQuery, MultiVectorQuery {}
