package dev.tenbin.index.collection;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * The SHA-256 of a collection's content: a domain tag, then for every committed document in id
 * order its id (UTF-8, length-prefixed) and the {@link DocumentDigest} of its stored content
 * (title, text, every vector's float bits, each length-prefixed), recomputed from the stores; last
 * the number of documents. It therefore depends on the documents alone, not on the order or the
 * batches they were ingested in nor on how Lucene laid out its segments, and any document that
 * differs (in id, title, text or one vector bit), is missing or is extra changes it.
 *
 * @param hex the digest as 64 lowercase hex characters
 * @param documents the documents it covers
 */
public record CollectionDigest(String hex, long documents) {
  private static final byte[] DOMAIN = "tenbin.collection.v1".getBytes(StandardCharsets.US_ASCII);

  /** The digest of the documents {@code cursor} walks, read one at a time. */
  static CollectionDigest of(DocumentCursor cursor) {
    MessageDigest sha = sha256();
    sha.update(DOMAIN);
    long documents = 0;
    while (cursor.hasNext()) {
      IngestDocument document = cursor.next();
      byte[] id = document.id().getBytes(StandardCharsets.UTF_8);
      sha.update(ByteBuffer.allocate(Integer.BYTES).putInt(id.length).array());
      sha.update(id);
      sha.update(DocumentDigest.of(document));
      documents++;
    }
    sha.update(ByteBuffer.allocate(Long.BYTES).putLong(documents).array());
    return new CollectionDigest(HexFormat.of().formatHex(sha.digest()), documents);
  }

  private static MessageDigest sha256() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every Java platform provides SHA-256", e);
    }
  }
}
