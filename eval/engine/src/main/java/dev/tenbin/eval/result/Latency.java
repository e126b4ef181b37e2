package dev.tenbin.eval.result;

/**
 * Single-query latency as a probe measured it, in microseconds.
 *
 * @param p50Us the median
 * @param p99Us the 99th percentile (linear interpolation between order statistics, R type 7)
 */
public record Latency(double p50Us, double p99Us) {}
