package dev.tenbin.index.fusion;

/** A document of a ranking given to fusion: id and score, in rank order. */
public record RankedDoc(String docId, float score) {}
