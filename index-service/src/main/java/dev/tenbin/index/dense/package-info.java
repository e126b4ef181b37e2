/**
 * Exact dense retrieval over float32 vectors and its efficiency variants, in plain Java.
 *
 * <p>{@link dev.tenbin.index.dense.DenseVectorStore} keeps a collection's vectors on disk (append,
 * commit, rollback, memory-mapped reads); {@link dev.tenbin.index.dense.DenseSearcher} searches a
 * committed snapshot by cosine or dot product, truncated or not, scanned in float, int8 or binary
 * ({@code dev.tenbin.index.quantize}), re-scored or approximate (Lucene HNSW), with SIMD kernels
 * ({@link dev.tenbin.index.dense.DotProduct}, {@code jdk.incubator.vector}) and a parallel scan
 * whose results do not depend on the thread count. Every search returns FP32 scores in one order:
 * score descending, then document id ascending.
 */
package dev.tenbin.index.dense;
