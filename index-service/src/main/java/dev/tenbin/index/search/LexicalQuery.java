package dev.tenbin.index.search;

/** A BM25 query: the text, analysed like the collection's documents. */
public record LexicalQuery(String text) implements Query {
  public LexicalQuery {
    text = text == null ? "" : text;
  }
}
