package dev.tenbin.index.collection;

import dev.tenbin.index.multivector.TokenVectors;
import dev.tenbin.index.sparse.SparseDoc;

/**
 * One document to ingest: its id, its text for BM25 and, when the collection stores them, its dense
 * vector, sparse vector and token vectors.
 */
public record IngestDocument(
    String id,
    String title,
    String text,
    float[] dense,
    SparseDoc sparse,
    TokenVectors multiVector) {
  public IngestDocument(String id, String title, String text) {
    this(id, title, text, null, null, null);
  }

  public IngestDocument(String id, String title, String text, float[] dense) {
    this(id, title, text, dense, null, null);
  }
}
