package dev.tenbin.index.search;

import dev.tenbin.index.lexical.Bm25Statistics;

/**
 * A BM25 query: the text, analysed like the collection's documents, scored with the collection's
 * own statistics or, for a shard of a sharded collection, the whole collection's.
 *
 * @param statistics collection-wide statistics, or null for the collection's own
 */
public record LexicalQuery(String text, Bm25Statistics statistics) implements Query {
  public LexicalQuery {
    text = text == null ? "" : text;
  }

  /** A query scored with the collection's own statistics. */
  public LexicalQuery(String text) {
    this(text, null);
  }
}
