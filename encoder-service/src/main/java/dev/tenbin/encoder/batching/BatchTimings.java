package dev.tenbin.encoder.batching;

/**
 * What serving one request cost: the longest wait of its inputs in the queue, the forward passes
 * that served them (summed once per pass), their padded tokens and the number of passes.
 */
public record BatchTimings(long queueNanos, long inferenceNanos, long paddedTokens, int batches) {}
