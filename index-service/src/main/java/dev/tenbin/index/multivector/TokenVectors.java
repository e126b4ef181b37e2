package dev.tenbin.index.multivector;

/** Per-token vectors of one text, row-major ({@code tokens × dimension}). */
public record TokenVectors(int tokens, float[] values) {}
