package dev.tenbin.eval.cache;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The corpus slices whose encodings a {@link KeySpace} holds in full, each with the time its encode
 * took: the file {@code slices.tsv} in the key space's folder, one line {@code <digest>\t<texts>\t
 * <encode nanoseconds>} per slice, appended once the slice's records are stored. A slice is known
 * by the SHA-256 of its texts' hashes in order ({@link #digest}), so the same texts cut the same
 * way are the same slice whichever job or process encodes them.
 *
 * <p>Crash safety: a line is appended in one write after the slice's records; a line without its
 * end (a crash mid-write) or that does not parse is ignored, so a slice counts as encoded only once
 * its records and its whole line are on disk. Several processes may append: a line is appended
 * under the key space's lock, and a digest missing here is looked up in the file again before it is
 * reported missing.
 */
final class SliceLedger {
  static final String FILE = "slices.tsv";

  /** One encoded slice: its text count and the nanoseconds its encode took when it was encoded. */
  record Entry(int texts, long encodeNanos) {}

  private final Path file;
  private final Map<String, Entry> entries = new ConcurrentHashMap<>();

  /** Bytes of the file read so far (whole lines only). */
  private long readUpTo;

  SliceLedger(Path directory) {
    this.file = directory.resolve(FILE);
  }

  /** The digest of a slice of texts: SHA-256 of their 32-byte hashes, in order, as hex. */
  static String digest(List<TextHash> hashes) {
    ByteBuffer bytes = ByteBuffer.allocate(hashes.size() * TextHash.BYTES);
    hashes.forEach(hash -> hash.write(bytes));
    try {
      return HexFormat.of()
          .formatHex(java.security.MessageDigest.getInstance("SHA-256").digest(bytes.array()));
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is missing from this JDK", e);
    }
  }

  /** The slice with {@code digest} and {@code texts} texts, or null when it is not recorded. */
  synchronized Entry find(String digest, int texts) {
    Entry entry = entries.get(digest);
    if (entry == null) {
      readNewLines();
      entry = entries.get(digest);
    }
    return entry != null && entry.texts() == texts ? entry : null;
  }

  /** Records a slice whose records are stored; the caller holds the key space's lock. */
  synchronized void append(String digest, int texts, long encodeNanos) {
    byte[] line =
        (digest + "\t" + texts + "\t" + encodeNanos + "\n").getBytes(StandardCharsets.US_ASCII);
    try (FileChannel channel =
        FileChannel.open(
            file, StandardOpenOption.CREATE, StandardOpenOption.WRITE, StandardOpenOption.APPEND)) {
      ByteBuffer buffer = ByteBuffer.wrap(line);
      while (buffer.hasRemaining()) {
        channel.write(buffer);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot append to " + file, e);
    }
    entries.putIfAbsent(digest, new Entry(texts, encodeNanos));
  }

  private void readNewLines() {
    if (!Files.isRegularFile(file)) {
      return;
    }
    try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
      long size = channel.size();
      if (size <= readUpTo) {
        return;
      }
      ByteBuffer buffer = ByteBuffer.allocate(Math.toIntExact(size - readUpTo));
      while (buffer.hasRemaining() && channel.read(buffer, readUpTo + buffer.position()) >= 0) {
        // reads to the end
      }
      String text = new String(buffer.array(), 0, buffer.position(), StandardCharsets.US_ASCII);
      int lineStart = 0;
      for (int end = text.indexOf('\n'); end >= 0; end = text.indexOf('\n', lineStart)) {
        parse(text.substring(lineStart, end));
        lineStart = end + 1;
      }
      readUpTo += lineStart;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + file, e);
    }
  }

  private void parse(String line) {
    String[] fields = line.split("\t", -1);
    if (fields.length != 3 || fields[0].length() != 64) {
      return;
    }
    try {
      int texts = Integer.parseInt(fields[1]);
      long nanos = Long.parseLong(fields[2]);
      if (texts > 0 && nanos >= 0) {
        entries.putIfAbsent(fields[0], new Entry(texts, nanos));
      }
    } catch (NumberFormatException malformed) {
      // not a whole line: ignored
    }
  }
}
