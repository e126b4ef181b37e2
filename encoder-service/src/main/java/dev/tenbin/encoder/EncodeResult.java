package dev.tenbin.encoder;

import java.util.List;

/**
 * Outputs of one encode call with what producing them cost.
 *
 * @param vectors one output per input, in input order
 * @param tokenizeNanos time spent tokenizing
 * @param queueNanos longest wait of an input before its forward pass
 * @param inferenceNanos forward passes that served the call
 * @param inputTokens real tokens of the inputs
 * @param paddedTokens tokens including padding of those passes
 * @param batches forward passes
 */
public record EncodeResult<T>(
    List<T> vectors,
    long tokenizeNanos,
    long queueNanos,
    long inferenceNanos,
    long inputTokens,
    long paddedTokens,
    int batches) {}
