package dev.tenbin.index.fusion;

/** A document of a ranking: its id and FP32 score; rankings list them best first. */
public record RankedDoc(String docId, float score) {}
