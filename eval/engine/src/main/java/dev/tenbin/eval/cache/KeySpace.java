package dev.tenbin.eval.cache;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.zip.CRC32C;

/**
 * The records of one {@link CacheKey} in one folder: append-only segment files {@code
 * segment-000001.bin}, ... of records {@code [32-byte text hash][int32 payload length][int32 CRC32C
 * of hash and payload][payload]} (little-endian), and an in-memory index from text hash to record
 * built by scanning the segments on open; and {@code slices.tsv}, the corpus slices stored whole
 * with their encode times ({@link SliceLedger}).
 *
 * <p>Crash and concurrency safety: a record is only trusted when it lies wholly inside the file and
 * its checksum matches, so a torn trailing record (a crash mid-append) ends the scan; every read
 * checks its record again, so damage after the scan makes a record missing, never wrong. Appends
 * take an exclusive {@link FileLock} on the folder's {@code lock} file (and this object's monitor,
 * for the threads of one process); under the lock a writer first reads the records other processes
 * appended since it last looked, cuts off a torn tail, then writes at the end. So processes never
 * overwrite each other, and a hash another process already stored is not written twice.
 */
final class KeySpace implements AutoCloseable {
  static final int HEADER = TextHash.BYTES + 8;
  static final long DEFAULT_SEGMENT_BYTES = 512L << 20;

  /** Where a record's payload lies. */
  record Location(int segment, long offset, int length) {}

  private final Path directory;
  private final long segmentBytes;
  private final Map<TextHash, Location> index = new ConcurrentHashMap<>();
  private final List<FileChannel> segments = new CopyOnWriteArrayList<>();
  private final FileChannel lockFile;
  private final SliceLedger slices;

  /** End of the valid records of the last segment, as far as this process has read. */
  private long validEnd;

  private KeySpace(Path directory, long segmentBytes, FileChannel lockFile) {
    this.directory = directory;
    this.segmentBytes = segmentBytes;
    this.lockFile = lockFile;
    this.slices = new SliceLedger(directory);
  }

  /** Opens the folder (creating it, with {@code key.json}, if needed) and indexes its records. */
  static KeySpace open(Path directory, CacheKey key, long segmentBytes) {
    try {
      Files.createDirectories(directory);
      Path keyFile = directory.resolve("key.json");
      if (!Files.exists(keyFile)) {
        Path temporary = Files.createTempFile(directory, ".key", ".tmp");
        Files.writeString(temporary, key.toJson());
        Files.move(
            temporary,
            keyFile,
            java.nio.file.StandardCopyOption.ATOMIC_MOVE,
            java.nio.file.StandardCopyOption.REPLACE_EXISTING);
      }
      FileChannel lock =
          FileChannel.open(
              directory.resolve("lock"), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
      KeySpace space = new KeySpace(directory, segmentBytes, lock);
      space.catchUp();
      return space;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot open embedding cache folder " + directory, e);
    }
  }

  int size() {
    return index.size();
  }

  boolean contains(TextHash hash) {
    return index.containsKey(hash);
  }

  /**
   * The payload stored for {@code hash}, or null. The whole record is read again and checked (its
   * hash, length and checksum) before its payload is returned: a record that was damaged, or cut
   * off or overwritten by another opener after this one indexed it, is dropped from the index and
   * reported missing (the caller encodes the text again and the next append stores it anew), never
   * returned as another record's bytes.
   */
  ByteBuffer read(TextHash hash) {
    Location location = index.get(hash);
    if (location == null) {
      return null;
    }
    ByteBuffer record =
        ByteBuffer.allocate(HEADER + location.length()).order(ByteOrder.LITTLE_ENDIAN);
    FileChannel segment = segments.get(location.segment());
    try {
      long position = location.offset() - HEADER;
      while (record.hasRemaining()) {
        int read = segment.read(record, position);
        if (read < 0) {
          index.remove(hash, location);
          return null;
        }
        position += read;
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read embedding cache folder " + directory, e);
    }
    record.flip();
    if (!intact(record, hash, location.length())) {
      index.remove(hash, location);
      return null;
    }
    return record.position(HEADER).slice().order(ByteOrder.LITTLE_ENDIAN);
  }

  /**
   * Whether {@code record} (header and payload) is a whole record of {@code hash} with its
   * checksum.
   */
  private static boolean intact(ByteBuffer record, TextHash hash, int length) {
    if (!TextHash.read(record.duplicate()).equals(hash)
        || record.getInt(TextHash.BYTES) != length) {
      return false;
    }
    CRC32C crc = new CRC32C();
    crc.update(record.array(), 0, TextHash.BYTES);
    crc.update(record.array(), HEADER, length);
    return (int) crc.getValue() == record.getInt(TextHash.BYTES + 4);
  }

  /** The recorded slice of {@code hashes} (see {@link SliceLedger}), or null. */
  SliceLedger.Entry slice(List<TextHash> hashes) {
    return slices.find(SliceLedger.digest(hashes), hashes.size());
  }

  /**
   * Appends the records of a slice's texts whose hash is not stored yet, then records the slice of
   * {@code sliceHashes} as encoded in {@code encodeNanos}; returns the bytes written.
   */
  synchronized long appendSlice(
      List<TextHash> sliceHashes, List<TextHash> hashes, List<byte[]> payloads, long encodeNanos) {
    try (FileLock ignored = lock()) {
      long written = appendLocked(hashes, payloads);
      slices.append(SliceLedger.digest(sliceHashes), sliceHashes.size(), encodeNanos);
      return written;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot append to embedding cache folder " + directory, e);
    }
  }

  /**
   * Appends the records whose hash is not stored yet; returns the bytes written. Safe to call from
   * several threads and processes at once.
   */
  synchronized long append(List<TextHash> hashes, List<byte[]> payloads) {
    try (FileLock ignored = lock()) {
      return appendLocked(hashes, payloads);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot append to embedding cache folder " + directory, e);
    }
  }

  private long appendLocked(List<TextHash> hashes, List<byte[]> payloads) throws IOException {
    catchUp();
    truncateTornTail();
    long written = 0;
    int from = 0;
    while (from < hashes.size()) {
      if (segments.isEmpty() || validEnd >= segmentBytes) {
        openSegment(segments.size() + 1);
        validEnd = 0;
      }
      Batch batch = batch(hashes, payloads, from, segmentBytes - validEnd);
      int segment = segments.size() - 1;
      FileChannel channel = segments.get(segment);
      long start = validEnd;
      ByteBuffer bytes = batch.bytes();
      long position = start;
      while (bytes.hasRemaining()) {
        position += channel.write(bytes, position);
      }
      long offset = start;
      for (int i = 0; i < batch.hashes().size(); i++) {
        int length = batch.lengths().get(i);
        index.putIfAbsent(batch.hashes().get(i), new Location(segment, offset + HEADER, length));
        offset += HEADER + length;
      }
      written += position - start;
      validEnd = position;
      from += batch.consumed();
    }
    return written;
  }

  /**
   * Records ready to write: their bytes, hashes and payload lengths, and how many inputs they
   * cover.
   */
  private record Batch(
      ByteBuffer bytes, List<TextHash> hashes, List<Integer> lengths, int consumed) {}

  /**
   * The records of {@code hashes[from..]} not stored yet, as many as fit in {@code room} bytes (at
   * least one input is consumed).
   */
  private Batch batch(List<TextHash> hashes, List<byte[]> payloads, int from, long room) {
    long bytes = 0;
    int end = from;
    Set<TextHash> seen = new HashSet<>();
    List<Integer> take = new ArrayList<>();
    while (end < hashes.size()) {
      TextHash hash = hashes.get(end);
      long size = (long) HEADER + payloads.get(end).length;
      if (end > from && bytes + size > room) {
        break;
      }
      if (!index.containsKey(hash) && seen.add(hash)) {
        take.add(end);
        bytes += size;
      }
      end++;
    }
    ByteBuffer out = ByteBuffer.allocate(Math.toIntExact(bytes)).order(ByteOrder.LITTLE_ENDIAN);
    List<TextHash> taken = new ArrayList<>(take.size());
    List<Integer> lengths = new ArrayList<>(take.size());
    CRC32C crc = new CRC32C();
    for (int i : take) {
      byte[] payload = payloads.get(i);
      int start = out.position();
      hashes.get(i).write(out);
      crc.reset();
      crc.update(out.array(), start, TextHash.BYTES);
      crc.update(payload);
      out.putInt(payload.length).putInt((int) crc.getValue()).put(payload);
      taken.add(hashes.get(i));
      lengths.add(payload.length);
    }
    return new Batch(out.flip(), taken, lengths, end - from);
  }

  /**
   * Reads the records appended since this process last looked (by others, or before a crash),
   * moving on to newer segments; under the lock, cuts a torn tail off the last segment.
   */
  private void catchUp() throws IOException {
    if (segments.isEmpty()) {
      if (!Files.exists(segmentPath(1))) {
        return;
      }
      openSegment(1);
      validEnd = 0;
    }
    while (true) {
      int segment = segments.size() - 1;
      validEnd = scan(segment, validEnd);
      if (!Files.exists(segmentPath(segment + 2))) {
        return;
      }
      openSegment(segment + 2);
      validEnd = 0;
    }
  }

  /** Indexes the valid records of a segment from {@code from}; returns the end of the last one. */
  private long scan(int segment, long from) throws IOException {
    FileChannel channel = segments.get(segment);
    long size = channel.size();
    if (size <= from) {
      return from;
    }
    MappedByteBuffer mapped = channel.map(FileChannel.MapMode.READ_ONLY, from, size - from);
    mapped.order(ByteOrder.LITTLE_ENDIAN);
    CRC32C crc = new CRC32C();
    int position = 0;
    while (mapped.limit() - position >= HEADER) {
      int length = mapped.getInt(position + TextHash.BYTES);
      if (length < 0 || length > mapped.limit() - position - HEADER) {
        break;
      }
      crc.reset();
      crc.update(mapped.slice(position, TextHash.BYTES));
      crc.update(mapped.slice(position + HEADER, length));
      if ((int) crc.getValue() != mapped.getInt(position + TextHash.BYTES + 4)) {
        break;
      }
      TextHash hash = TextHash.read(mapped.slice(position, TextHash.BYTES));
      index.putIfAbsent(hash, new Location(segment, from + position + HEADER, length));
      position += HEADER + length;
    }
    return from + position;
  }

  /** Called under the lock: cuts off what follows the last valid record of the last segment. */
  private void truncateTornTail() throws IOException {
    if (!segments.isEmpty()) {
      FileChannel last = segments.getLast();
      if (last.size() > validEnd) {
        last.truncate(validEnd);
      }
    }
  }

  private void openSegment(int number) throws IOException {
    segments.add(
        FileChannel.open(
            segmentPath(number),
            StandardOpenOption.CREATE,
            StandardOpenOption.READ,
            StandardOpenOption.WRITE));
  }

  private Path segmentPath(int number) {
    return directory.resolve(String.format(java.util.Locale.ROOT, "segment-%06d.bin", number));
  }

  /**
   * The exclusive file lock; waits while another thread of this process holds it on another
   * instance.
   */
  private FileLock lock() throws IOException {
    while (true) {
      try {
        return lockFile.lock();
      } catch (OverlappingFileLockException e) {
        Thread.onSpinWait();
        try {
          Thread.sleep(1);
        } catch (InterruptedException interrupted) {
          Thread.currentThread().interrupt();
          throw new IOException("interrupted while waiting for the cache lock", interrupted);
        }
      }
    }
  }

  @Override
  public synchronized void close() {
    try {
      for (FileChannel segment : segments) {
        segment.force(false);
        segment.close();
      }
      lockFile.close();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot close embedding cache folder " + directory, e);
    }
  }
}
