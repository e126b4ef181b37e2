package dev.tenbin.index.lexical;

/** A BM25 hit: the document's ordinal in the collection, its id and its FP32 score. */
public record LexicalHit(int ordinal, String docId, float score) {}
