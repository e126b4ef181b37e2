package dev.tenbin.index.collection;

/**
 * One document to ingest: its id, its text for BM25, and (when the collection stores them) its
 * dense vector.
 */
public record IngestDocument(String id, String title, String text, float[] dense) {
  public IngestDocument(String id, String title, String text) {
    this(id, title, text, null);
  }
}
