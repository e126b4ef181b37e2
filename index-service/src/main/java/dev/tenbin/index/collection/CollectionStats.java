package dev.tenbin.index.collection;

/** What describing a collection reports. */
public record CollectionStats(CollectionSpec spec, long documentCount, long bytesOnDisk) {}
