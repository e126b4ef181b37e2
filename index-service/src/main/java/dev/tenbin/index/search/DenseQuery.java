package dev.tenbin.index.search;

import dev.tenbin.index.dense.DenseSearchOptions;

/**
 * A dense query: one vector of the collection's dimension and the variant to search with. Rescoring
 * a candidate set uses the similarity and truncation of the options (the float vectors, exactly).
 */
public record DenseQuery(float[] vector, DenseSearchOptions options) implements Query {}
