package dev.tenbin.index.collection;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenbin.index.lexical.Bm25Parameters;
import dev.tenbin.index.multivector.TokenVectors;
import dev.tenbin.index.sparse.SparseDoc;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The content digest of a collection and the walk it is computed over: equal for the same documents
 * however they were ingested, different when one document differs in anything stored.
 */
class CollectionDigestTest {
  @TempDir Path dataDir;

  private static final int DOCUMENTS = 240;

  /** A collection storing every representation: text, dense, sparse and multi-vector. */
  private static CollectionSpec spec(String name) {
    return new CollectionSpec(name, "en", Bm25Parameters.ANSERINI_DEFAULTS, 4, 50, 3);
  }

  private static List<IngestDocument> documents() {
    Random random = new Random(3);
    List<IngestDocument> documents = new ArrayList<>();
    for (int d = 0; d < DOCUMENTS; d++) {
      float[] dense = new float[4];
      for (int i = 0; i < dense.length; i++) {
        dense[i] = (float) random.nextGaussian();
      }
      int first = random.nextInt(40);
      SparseDoc sparse =
          new SparseDoc(
              new int[] {first, first + 1 + random.nextInt(9)},
              new float[] {random.nextFloat(), random.nextFloat()});
      int tokens = 1 + random.nextInt(3);
      float[] values = new float[tokens * 3];
      for (int i = 0; i < values.length; i++) {
        values[i] = random.nextFloat();
      }
      documents.add(
          new IngestDocument(
              "doc-" + d,
              d % 3 == 0 ? "" : "title " + d,
              "text number " + d + " with words " + random.nextInt(1000),
              dense,
              sparse,
              new TokenVectors(tokens, values)));
    }
    return documents;
  }

  /** Ingests {@code documents} into a new collection {@code name} in batches of {@code batch}. */
  private static IndexCollection ingest(
      CollectionCatalog catalog, String name, List<IngestDocument> documents, int batch) {
    IndexCollection collection = catalog.create(spec(name));
    for (int from = 0; from < documents.size(); from += batch) {
      collection.ingest(documents.subList(from, Math.min(documents.size(), from + batch)));
    }
    return collection;
  }

  private static List<IngestDocument> shuffled(List<IngestDocument> documents, long seed) {
    List<IngestDocument> copy = new ArrayList<>(documents);
    Collections.shuffle(copy, new Random(seed));
    return copy;
  }

  @Test
  void theSameDocumentsInAnotherOrderAndOtherBatchesHaveTheSameDigest() {
    List<IngestDocument> documents = documents();
    try (CollectionCatalog catalog = CollectionCatalog.open(dataDir)) {
      CollectionDigest inOrder = ingest(catalog, "a", documents, DOCUMENTS).digest();
      CollectionDigest shuffledSmallBatches =
          ingest(catalog, "b", shuffled(documents, 1), 7).digest();
      CollectionDigest otherBatches = ingest(catalog, "c", shuffled(documents, 2), 23).digest();

      assertThat(inOrder.documents()).isEqualTo(DOCUMENTS);
      assertThat(inOrder.hex()).hasSize(64).matches("[0-9a-f]{64}");
      assertThat(shuffledSmallBatches).isEqualTo(inOrder);
      assertThat(otherBatches).isEqualTo(inOrder);
      // Deterministic: asked again, and after the collection is reopened from disk.
      assertThat(catalog.get("a", "collection").digest()).isEqualTo(inOrder);
    }
    try (CollectionCatalog reopened = CollectionCatalog.open(dataDir)) {
      CollectionDigest a = reopened.get("a", "collection").digest();
      assertThat(reopened.get("b", "collection").digest()).isEqualTo(a);
      assertThat(reopened.get("c", "collection").digest()).isEqualTo(a);
    }
  }

  @Test
  void oneDocumentThatDiffersInAnyStoredFieldChangesTheDigest() {
    List<IngestDocument> documents = documents();
    List<UnaryOperator<IngestDocument>> changes =
        List.of(
            d -> withId(d, d.id() + "x"),
            d ->
                new IngestDocument(
                    d.id(), d.title() + "!", d.text(), d.dense(), d.sparse(), d.multiVector()),
            d ->
                new IngestDocument(
                    d.id(), d.title(), d.text() + " more", d.dense(), d.sparse(), d.multiVector()),
            d -> {
              float[] dense = d.dense().clone();
              // One bit of one float.
              dense[2] = Float.intBitsToFloat(Float.floatToRawIntBits(dense[2]) ^ 1);
              return new IngestDocument(
                  d.id(), d.title(), d.text(), dense, d.sparse(), d.multiVector());
            },
            d -> {
              float[] weights = d.sparse().weights().clone();
              weights[0] = Math.nextUp(weights[0]);
              return new IngestDocument(
                  d.id(),
                  d.title(),
                  d.text(),
                  d.dense(),
                  new SparseDoc(d.sparse().ids(), weights),
                  d.multiVector());
            },
            d -> {
              float[] values = d.multiVector().values().clone();
              values[values.length - 1] = -values[values.length - 1];
              return new IngestDocument(
                  d.id(),
                  d.title(),
                  d.text(),
                  d.dense(),
                  d.sparse(),
                  new TokenVectors(d.multiVector().tokens(), values));
            });
    try (CollectionCatalog catalog = CollectionCatalog.open(dataDir)) {
      String reference = ingest(catalog, "reference", documents, 50).digest().hex();
      List<String> digests = new ArrayList<>();
      for (int c = 0; c < changes.size(); c++) {
        List<IngestDocument> changed = new ArrayList<>(documents);
        changed.set(117, changes.get(c).apply(documents.get(117)));
        digests.add(ingest(catalog, "changed-" + c, changed, 50).digest().hex());
      }
      List<IngestDocument> missingOne = new ArrayList<>(documents);
      missingOne.remove(200);
      CollectionDigest missing = ingest(catalog, "missing", missingOne, 50).digest();
      assertThat(missing.documents()).isEqualTo(DOCUMENTS - 1);
      digests.add(missing.hex());

      assertThat(digests).doesNotContain(reference).doesNotHaveDuplicates();
    }
  }

  private static IngestDocument withId(IngestDocument d, String id) {
    return new IngestDocument(id, d.title(), d.text(), d.dense(), d.sparse(), d.multiVector());
  }

  @Test
  void theWalkHandsOutEveryDocumentInIdOrderAsItWasIngested() {
    List<IngestDocument> documents = documents();
    try (CollectionCatalog catalog = CollectionCatalog.open(dataDir)) {
      IndexCollection collection = ingest(catalog, "walk", shuffled(documents, 5), 13);
      DocumentCursor cursor = collection.documentsInIdOrder();
      // Committed after the walk began: not in it.
      collection.ingest(List.of(withId(documents.getFirst(), "zzz-late")));

      List<IngestDocument> walked = new ArrayList<>();
      while (cursor.hasNext()) {
        walked.add(cursor.next());
      }

      List<IngestDocument> expected = new ArrayList<>(documents);
      expected.sort((a, b) -> a.id().compareTo(b.id()));
      assertThat(cursor.size()).isEqualTo(DOCUMENTS);
      assertThat(walked).hasSize(DOCUMENTS);
      for (int i = 0; i < DOCUMENTS; i++) {
        IngestDocument want = expected.get(i);
        IngestDocument got = walked.get(i);
        assertThat(got.id()).isEqualTo(want.id());
        assertThat(got.title()).isEqualTo(want.title());
        assertThat(got.text()).isEqualTo(want.text());
        assertThat(got.dense()).containsExactly(want.dense());
        assertThat(got.sparse().ids()).containsExactly(want.sparse().ids());
        assertThat(got.sparse().weights()).containsExactly(want.sparse().weights());
        assertThat(got.multiVector().tokens()).isEqualTo(want.multiVector().tokens());
        assertThat(got.multiVector().values()).containsExactly(want.multiVector().values());
        assertThat(DocumentDigest.of(got)).isEqualTo(DocumentDigest.of(want));
      }
      assertThat(collection.digest().documents()).isEqualTo(DOCUMENTS + 1);
    }
  }

  @Test
  void anEmptyCollectionHasTheDigestOfNoDocuments() {
    try (CollectionCatalog catalog = CollectionCatalog.open(dataDir)) {
      CollectionDigest first = catalog.create(CollectionSpec.lexical("empty-1", "en")).digest();
      CollectionDigest second = catalog.create(spec("empty-2")).digest();
      assertThat(first.documents()).isZero();
      assertThat(second).isEqualTo(first);
      IndexCollection one = catalog.create(CollectionSpec.lexical("one", "en"));
      one.ingest(List.of(new IngestDocument("d", "", "")));
      assertThat(one.digest().hex()).isNotEqualTo(first.hex());
    }
  }
}
