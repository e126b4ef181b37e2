package dev.tenbin.eval.job;

import dev.tenbin.core.Sha256;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.channels.Channels;
import java.nio.channels.ReadableByteChannel;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.security.DigestInputStream;
import java.security.MessageDigest;
import java.time.Clock;
import java.time.Duration;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The SHA-256 digests of job files the eval service has listed, kept so that listing a job again
 * reads only what changed: a digest is reused while the file has the same path, size, modification
 * time and identity (inode and device: a file replaced by a rename is another file). A file
 * modified moments ago ({@link #SETTLING}) is read each time, since a file system that keeps
 * modification times in coarse ticks could show a rewrite within the tick as unchanged. At most
 * {@code maxEntries} digests are kept, the least recently used dropped first.
 */
public final class JobFileDigests {
  /** How long after its last modification a file's digest starts being kept. */
  public static final Duration SETTLING = Duration.ofSeconds(3);

  /** Digests kept by the service's one instance. */
  public static final int DEFAULT_MAX_ENTRIES = 200_000;

  /** Reads a file's bytes into a digest. */
  @FunctionalInterface
  public interface Hasher {
    String sha256(ReadableByteChannel channel) throws IOException;
  }

  /** Opens a file for reading, links not followed (the caller's walk knows how). */
  @FunctionalInterface
  public interface Opener {
    ReadableByteChannel open() throws IOException;
  }

  private record Key(String path, long size, long modifiedNanos, Object fileKey) {}

  private final int maxEntries;
  private final Hasher hasher;
  private final Clock clock;
  private final Map<Key, String> digests;

  public JobFileDigests() {
    this(DEFAULT_MAX_ENTRIES, JobFileDigests::sha256, Clock.systemUTC());
  }

  public JobFileDigests(int maxEntries, Hasher hasher, Clock clock) {
    this.maxEntries = maxEntries;
    this.hasher = hasher;
    this.clock = clock;
    this.digests =
        new LinkedHashMap<>(16, 0.75f, true) {
          @Override
          protected boolean removeEldestEntry(Map.Entry<Key, String> eldest) {
            return size() > JobFileDigests.this.maxEntries;
          }
        };
  }

  /** The digest of {@code file}, whose attributes (links not followed) are {@code attributes}. */
  public String sha256(Path file, BasicFileAttributes attributes, Opener opener)
      throws IOException {
    long modified = attributes.lastModifiedTime().to(java.util.concurrent.TimeUnit.NANOSECONDS);
    Key key = new Key(file.toString(), attributes.size(), modified, attributes.fileKey());
    boolean settled =
        attributes.fileKey() != null
            && attributes.lastModifiedTime().toInstant().plus(SETTLING).isBefore(clock.instant());
    if (settled) {
      synchronized (digests) {
        String known = digests.get(key);
        if (known != null) {
          return known;
        }
      }
    }
    String digest;
    try (ReadableByteChannel channel = opener.open()) {
      digest = hasher.sha256(channel);
    }
    if (settled) {
      synchronized (digests) {
        digests.put(key, digest);
      }
    }
    return digest;
  }

  /** Digests kept now. */
  public int size() {
    synchronized (digests) {
      return digests.size();
    }
  }

  /** SHA-256 of everything {@code channel} has left, as hex. */
  public static String sha256(ReadableByteChannel channel) throws IOException {
    MessageDigest digest = Sha256.digest();
    try (InputStream in = new DigestInputStream(Channels.newInputStream(channel), digest)) {
      in.transferTo(OutputStream.nullOutputStream());
    }
    return HexFormat.of().formatHex(digest.digest());
  }
}
