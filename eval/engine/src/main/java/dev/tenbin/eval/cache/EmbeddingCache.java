package dev.tenbin.eval.cache;

import dev.tenbin.client.encoder.EncoderClient;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * An orchestrator-side store of encoder outputs, so re-runs and efficiency variants never encode
 * the same text twice. Records are keyed by a {@link CacheKey} (model, revision, role, prompt, max
 * length, output kind, dtype, ...) and the SHA-256 of the text; each key has its own folder under
 * {@code directory} (named {@link CacheKey#id()}, described by its {@code key.json}), holding
 * append-only segment files (see {@link KeySpace} for the format and its crash and concurrency
 * safety). A folder is indexed into memory the first time its key is used.
 *
 * <p>Encode through the cache with {@link #cached(EncoderClient)}. Thread-safe; several processes
 * may share a directory.
 */
public final class EmbeddingCache implements AutoCloseable {
  /** Bytes stored per entry besides its payload (the text's hash and the payload's length). */
  public static final int ENTRY_HEADER_BYTES = KeySpace.HEADER;

  private final Path directory;
  private final long segmentBytes;
  private final Map<String, KeySpace> spaces = new ConcurrentHashMap<>();
  private final LongAdder hits = new LongAdder();
  private final LongAdder misses = new LongAdder();
  private final LongAdder bytesRead = new LongAdder();
  private final LongAdder bytesWritten = new LongAdder();

  private EmbeddingCache(Path directory, long segmentBytes) {
    this.directory = directory;
    this.segmentBytes = segmentBytes;
  }

  /** Opens (creating if needed) the cache in {@code directory}. */
  public static EmbeddingCache open(Path directory) {
    return open(directory, KeySpace.DEFAULT_SEGMENT_BYTES);
  }

  static EmbeddingCache open(Path directory, long segmentBytes) {
    try {
      Files.createDirectories(directory);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create embedding cache " + directory, e);
    }
    return new EmbeddingCache(directory, segmentBytes);
  }

  public Path directory() {
    return directory;
  }

  /**
   * An encoder that answers from this cache and encodes only what it lacks through {@code client}.
   */
  public CachedEncoder cached(EncoderClient client) {
    return new CachedEncoder(this, client);
  }

  public CacheStats stats() {
    return new CacheStats(hits.sum(), misses.sum(), bytesRead.sum(), bytesWritten.sum());
  }

  /** The key space of {@code key}, opened and indexed on first use. */
  KeySpace space(CacheKey key) {
    return spaces.computeIfAbsent(
        key.id(), id -> KeySpace.open(directory.resolve(id), key, segmentBytes));
  }

  void recordHits(long count, long bytes) {
    hits.add(count);
    bytesRead.add(bytes);
  }

  void recordMisses(long count, long bytes) {
    misses.add(count);
    bytesWritten.add(bytes);
  }

  @Override
  public void close() {
    spaces.values().forEach(KeySpace::close);
    spaces.clear();
  }
}
