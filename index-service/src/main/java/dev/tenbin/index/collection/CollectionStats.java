package dev.tenbin.index.collection;

import dev.tenbin.index.quantize.Int8Quantizer;

/**
 * What describing a collection reports.
 *
 * @param name the collection's name (its folder's, for a collection whose spec cannot be read)
 * @param spec its spec, or null when it cannot be read
 * @param state whether it serves
 * @param error why it does not serve, or null
 * @param documentCount committed documents (0 when unknown)
 * @param bytesOnDisk bytes its files take, -1 when unknown
 * @param int8Calibration the full-dimension cosine int8 calibration of its dense vectors, or null
 * @param storesText whether it keeps its documents' title and text (false when unknown)
 */
public record CollectionStats(
    String name,
    CollectionSpec spec,
    CollectionState state,
    String error,
    long documentCount,
    long bytesOnDisk,
    Int8Quantizer int8Calibration,
    boolean storesText) {}
