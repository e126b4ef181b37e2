package dev.tenbin.eval.cache;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/** SHA-256 of a text's UTF-8 bytes: the record key within a key space. */
record TextHash(long a, long b, long c, long d) {
  static final int BYTES = 32;

  static TextHash of(String text) {
    return read(ByteBuffer.wrap(sha256(text.getBytes(StandardCharsets.UTF_8))));
  }

  /** Reads 32 bytes at the buffer's position (big-endian words), advancing it. */
  static TextHash read(ByteBuffer buffer) {
    java.nio.ByteOrder order = buffer.order();
    buffer.order(java.nio.ByteOrder.BIG_ENDIAN);
    TextHash hash =
        new TextHash(buffer.getLong(), buffer.getLong(), buffer.getLong(), buffer.getLong());
    buffer.order(order);
    return hash;
  }

  void write(ByteBuffer buffer) {
    java.nio.ByteOrder order = buffer.order();
    buffer.order(java.nio.ByteOrder.BIG_ENDIAN);
    buffer.putLong(a).putLong(b).putLong(c).putLong(d);
    buffer.order(order);
  }

  static byte[] sha256(byte[] bytes) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(bytes);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is missing from this JDK", e);
    }
  }
}
