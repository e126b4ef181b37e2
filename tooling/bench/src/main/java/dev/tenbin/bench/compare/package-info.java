/**
 * What benches that compare an in-process core with its service share: the same hits on both sides
 * before anything is timed ({@link dev.tenbin.bench.compare.SameHits}), and CPU per call read from
 * the operating system at several numbers of calls in flight ({@link
 * dev.tenbin.bench.compare.LoadLevels}, {@link dev.tenbin.bench.compare.CpuClock}). Depends on no
 * bench.
 */
package dev.tenbin.bench.compare;
