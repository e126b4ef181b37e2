/**
 * Fusion of rankings of one query: reciprocal rank fusion and min-max normalised linear
 * interpolation ({@link dev.tenbin.index.fusion.RankFusion}).
 */
package dev.tenbin.index.fusion;
