package dev.tenbin.eval.cache;

/**
 * What an {@link EmbeddingCache} has done since it was opened.
 *
 * @param hits texts answered from the cache (a repeated text counts each time)
 * @param misses distinct texts that had to be encoded
 * @param bytesRead payload bytes read for hits
 * @param bytesWritten record bytes appended to segment files
 */
public record CacheStats(long hits, long misses, long bytesRead, long bytesWritten) {}
