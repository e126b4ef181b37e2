package dev.tenbin.index.collection;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * The SHA-256 of a document's content: title, text and every vector's exact bits, each
 * length-prefixed so that no two different documents encode alike. The id is not part of it: the
 * digest answers "is this re-sent document the one already committed under its id?". Stored with
 * each document, so a client resuming an interrupted ingest can re-send a batch without duplicating
 * or silently replacing anything.
 */
final class DocumentDigest {
  /** Bytes of a digest. */
  static final int LENGTH = 32;

  private static final byte[] DOMAIN = "tenbin.document.v1".getBytes(StandardCharsets.US_ASCII);

  private DocumentDigest() {}

  static byte[] of(IngestDocument doc) {
    MessageDigest sha = sha256();
    sha.update(DOMAIN);
    text(sha, doc.title());
    text(sha, doc.text());
    float[] dense = doc.dense();
    if (dense == null) {
      sha.update((byte) 0);
    } else {
      sha.update((byte) 1);
      integer(sha, dense.length);
      floats(sha, dense);
    }
    var sparse = doc.sparse();
    if (sparse == null) {
      sha.update((byte) 0);
    } else {
      sha.update((byte) 1);
      integer(sha, sparse.ids().length);
      for (int id : sparse.ids()) {
        integer(sha, id);
      }
      integer(sha, sparse.weights().length);
      floats(sha, sparse.weights());
    }
    var multi = doc.multiVector();
    if (multi == null) {
      sha.update((byte) 0);
    } else {
      sha.update((byte) 1);
      integer(sha, multi.tokens());
      integer(sha, multi.values().length);
      floats(sha, multi.values());
    }
    return sha.digest();
  }

  private static void text(MessageDigest sha, String value) {
    byte[] bytes = (value == null ? "" : value).getBytes(StandardCharsets.UTF_8);
    integer(sha, bytes.length);
    sha.update(bytes);
  }

  private static void integer(MessageDigest sha, int value) {
    sha.update(ByteBuffer.allocate(Integer.BYTES).putInt(value).array());
  }

  private static void floats(MessageDigest sha, float[] values) {
    ByteBuffer buffer = ByteBuffer.allocate(4096);
    for (float value : values) {
      if (!buffer.hasRemaining()) {
        sha.update(buffer.array(), 0, buffer.position());
        buffer.clear();
      }
      buffer.putInt(Float.floatToRawIntBits(value));
    }
    sha.update(buffer.array(), 0, buffer.position());
  }

  private static MessageDigest sha256() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every Java platform provides SHA-256", e);
    }
  }
}
