package dev.tenbin.index.search;

import java.util.List;

/**
 * The one search request of the index core: queries of one family with that family's options, and
 * what to rank for them — the top {@code k} of the whole collection ({@link #topK}), or a fixed
 * candidate list per query ({@link #rescore}, any retrieval model as a reranker).
 *
 * @param queries all of one family with the same options (none gives no rankings)
 * @param k how many hits per query when searching the collection; 0 when rescoring
 * @param candidates one list of doc ids per query when rescoring; null when searching
 */
public record SearchRequest(List<Query> queries, int k, List<List<String>> candidates) {
  public SearchRequest {
    queries = List.copyOf(queries);
    Object shared = queries.isEmpty() ? null : sharedOptions(queries.getFirst());
    for (Query query : queries) {
      if (!sharedOptions(query).equals(shared)) {
        throw new IllegalArgumentException(
            "the queries of one request share one family and its options");
      }
    }
    if (candidates != null) {
      candidates = List.copyOf(candidates);
      if (candidates.size() != queries.size()) {
        throw new IllegalArgumentException("one candidate list per query");
      }
    } else if (k <= 0) {
      throw new IllegalArgumentException("k must be positive, got " + k);
    }
  }

  /** The top {@code k} of the collection for each query. */
  public static SearchRequest topK(List<? extends Query> queries, int k) {
    return new SearchRequest(List.copyOf(queries), k, null);
  }

  /** The scores of {@code candidates.get(i)} for query {@code i}, each list in ranking order. */
  public static SearchRequest rescore(
      List<? extends Query> queries, List<List<String>> candidates) {
    return new SearchRequest(List.copyOf(queries), 0, candidates);
  }

  /** True when fixed candidate lists are scored instead of the whole collection. */
  public boolean isRescore() {
    return candidates != null;
  }

  /** What the queries of one request share: their family and its options. */
  private static Object sharedOptions(Query query) {
    return switch (query) {
      case LexicalQuery lexical ->
          lexical.statistics() == null ? LexicalQuery.class : lexical.statistics();
      case DenseQuery dense -> dense.options();
      case SparseQuery sparse -> List.of(sparse.maxQueryDims(), sparse.maxDocumentDims());
      case MultiVectorQuery multiVector -> MultiVectorQuery.class;
    };
  }
}
