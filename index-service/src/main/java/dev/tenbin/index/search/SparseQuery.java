package dev.tenbin.index.search;

import dev.tenbin.index.sparse.SparseDoc;

/**
 * A learned-sparse query with max-active-dims pruning: keep the query's {@code maxQueryDims} and
 * each document's {@code maxDocumentDims} dims of largest |weight| (0 = all).
 */
public record SparseQuery(SparseDoc vector, int maxQueryDims, int maxDocumentDims)
    implements Query {}
