package dev.tenbin.index.collection;

import dev.tenbin.core.InvalidInputException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A batch checked whole before anything is written: every document valid for the collection ({@link
 * DocumentRules}, each stored vector present and well formed, none the collection does not store),
 * ids unique within the batch, and each id that is already committed re-sent with identical content
 * (its {@link DocumentDigest}). What remains to write are the new documents.
 *
 * @param fresh the batch's documents that are not committed yet, in batch order
 * @param positions their positions in the batch
 * @param digests their content digests
 * @param alreadyCommitted documents of the batch already committed with identical content
 */
record BatchPlan(
    List<IngestDocument> fresh,
    List<Integer> positions,
    List<byte[]> digests,
    int alreadyCommitted) {
  /** What the plan needs to know about the committed documents. */
  interface Committed {
    /** The ordinal of a committed id, or null. */
    Integer ordinalOf(String id);

    /** The digest stored with a committed document, or null when it was stored without one. */
    byte[] digestAt(int ordinal);
  }

  /** Validates {@code batch} for {@code stores} and splits it into new and re-sent documents. */
  static BatchPlan of(
      List<IngestDocument> batch,
      CollectionSpec spec,
      CollectionStores stores,
      Committed committed) {
    Map<String, Integer> seen = new HashMap<>();
    for (int i = 0; i < batch.size(); i++) {
      IngestDocument doc = batch.get(i);
      String field = "documents[" + i + "]";
      if (doc == null) {
        throw new InvalidInputException(field, "a document is required");
      }
      DocumentRules.check(doc, field);
      Integer earlier = seen.putIfAbsent(doc.id(), i);
      if (earlier != null) {
        throw new InvalidInputException(
            field + ".id",
            "duplicate document id "
                + Excerpt.of(doc.id())
                + " in this batch (also documents["
                + earlier
                + "])");
      }
      refuseUnstored(doc, field, spec, stores);
    }
    if (stores.dense != null) {
      stores.dense.validate(
          batch.stream().map(IngestDocument::dense).toList(), "documents[{i}].dense");
    }
    if (stores.sparse != null) {
      stores.sparse.validate(
          batch.stream().map(IngestDocument::sparse).toList(), "documents[{i}].sparse");
    }
    if (stores.multiVectors != null) {
      stores.multiVectors.validate(
          batch.stream().map(IngestDocument::multiVector).toList(), "documents[{i}].multi_vector");
    }
    List<IngestDocument> fresh = new ArrayList<>(batch.size());
    List<Integer> positions = new ArrayList<>(batch.size());
    List<byte[]> digests = new ArrayList<>(batch.size());
    int alreadyCommitted = 0;
    for (int i = 0; i < batch.size(); i++) {
      IngestDocument doc = batch.get(i);
      byte[] digest = DocumentDigest.of(doc);
      Integer ordinal = committed.ordinalOf(doc.id());
      if (ordinal == null) {
        fresh.add(doc);
        positions.add(i);
        digests.add(digest);
        continue;
      }
      byte[] stored = committed.digestAt(ordinal);
      if (!Arrays.equals(stored, digest)) {
        throw new InvalidInputException(
            "documents[" + i + "].id",
            "duplicate document id "
                + Excerpt.of(doc.id())
                + ": collection "
                + spec.name()
                + " already holds it "
                + (stored == null
                    ? "(stored by an older version without a content digest, so a re-send cannot be confirmed)"
                    : "with different content"));
      }
      alreadyCommitted++;
    }
    return new BatchPlan(fresh, positions, digests, alreadyCommitted);
  }

  private static void refuseUnstored(
      IngestDocument doc, String field, CollectionSpec spec, CollectionStores stores) {
    if (doc.dense() != null && stores.dense == null) {
      throw new InvalidInputException(
          field + ".dense", "collection " + spec.name() + " stores no dense vectors");
    }
    if (doc.sparse() != null && stores.sparse == null) {
      throw new InvalidInputException(
          field + ".sparse", "collection " + spec.name() + " stores no sparse vectors");
    }
    if (doc.multiVector() != null && stores.multiVectors == null) {
      throw new InvalidInputException(
          field + ".multi_vector", "collection " + spec.name() + " stores no multi-vectors");
    }
  }
}
