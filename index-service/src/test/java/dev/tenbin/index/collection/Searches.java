package dev.tenbin.index.collection;

import dev.tenbin.core.Cancellation;
import dev.tenbin.index.rank.Hit;
import dev.tenbin.index.search.Query;
import dev.tenbin.index.search.SearchRequest;
import java.util.List;

/** One-query shorthands over {@link IndexCollection#search} for the collection tests. */
final class Searches {
  private Searches() {}

  /** The top {@code k} of the collection for one query. */
  static List<Hit> top(IndexCollection collection, Query query, int k) {
    return collection
        .search(SearchRequest.topK(List.of(query), k), Cancellation.NEVER)
        .rankings()
        .getFirst();
  }

  /** One query's scores of a fixed candidate list. */
  static List<Hit> rescore(IndexCollection collection, Query query, List<String> docIds) {
    return collection
        .search(SearchRequest.rescore(List.of(query), List.of(docIds)), Cancellation.NEVER)
        .rankings()
        .getFirst();
  }
}
