package dev.tenbin.index.collection;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tenbin.core.InvalidInputException;
import dev.tenbin.core.PreconditionException;
import dev.tenbin.core.UnavailableException;
import dev.tenbin.index.dense.DenseSearchOptions;
import dev.tenbin.index.dense.VectorSimilarity;
import dev.tenbin.index.multivector.TokenVectors;
import dev.tenbin.index.rank.Hit;
import dev.tenbin.index.search.DenseQuery;
import dev.tenbin.index.search.LexicalQuery;
import dev.tenbin.index.search.MultiVectorQuery;
import dev.tenbin.index.search.SparseQuery;
import dev.tenbin.index.sparse.SparseDoc;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A batch is all-or-nothing across Lucene and every vector store: a failure at any point after
 * writing began leaves each store at the last commit, in memory and on disk.
 */
class IngestAtomicityTest {
  private static final CollectionSpec FULL = new CollectionSpec("c", "en", null, 2, 8, 2);
  @TempDir Path dataDir;

  private static IngestDocument doc(String id, String text, float x, float y) {
    return new IngestDocument(
        id,
        "",
        text,
        new float[] {x, y},
        new SparseDoc(new int[] {1, 3}, new float[] {x, y}),
        new TokenVectors(1, new float[] {x, y}));
  }

  private static final List<IngestDocument> FIRST =
      List.of(doc("a", "apple", 1, 0), doc("b", "apple", 0, 1));
  private static final List<IngestDocument> SECOND =
      List.of(doc("c", "apple", 1, 1), doc("d", "apple", 2, 1));

  /** Every family of the collection finds exactly {@code ids}; every store holds as many. */
  private static void assertHolds(IndexCollection collection, String... ids) {
    assertThat(collection.size()).isEqualTo(ids.length);
    assertThat(Searches.top(collection, new LexicalQuery("apple"), 10))
        .extracting(Hit::docId)
        .containsExactlyInAnyOrder(ids);
    assertThat(
            Searches.top(
                collection,
                new DenseQuery(
                    new float[] {1, 0.5f}, DenseSearchOptions.exact(VectorSimilarity.DOT)),
                10))
        .extracting(Hit::docId)
        .containsExactlyInAnyOrder(ids);
    assertThat(
            Searches.top(
                collection,
                new SparseQuery(new SparseDoc(new int[] {1, 3}, new float[] {1, 1}), 0, 0),
                10))
        .extracting(Hit::docId)
        .containsExactlyInAnyOrder(ids);
    assertThat(
            Searches.top(
                collection, new MultiVectorQuery(new TokenVectors(1, new float[] {1, 1})), 10))
        .extracting(Hit::docId)
        .containsExactlyInAnyOrder(ids);
    if (ids.length > 0) {
      assertThat(Searches.rescore(collection, new LexicalQuery("apple"), List.of(ids)))
          .hasSize(ids.length);
      List<String> storedIds = new java.util.ArrayList<>();
      collection.documents(
          List.of(ids),
          "ids",
          stored -> {
            assertThat(stored.text()).isEqualTo("apple");
            storedIds.add(stored.id());
          });
      assertThat(storedIds).containsExactly(ids);
    }
  }

  @ParameterizedTest
  @EnumSource(
      value = IngestFaults.Stage.class,
      names = {"APPENDED", "VECTORS_COMMITTED"})
  void aWriteFailingAtAnyStageLeavesEveryStoreAtTheLastCommit(IngestFaults.Stage failing) {
    try (CollectionCatalog catalog = CollectionCatalog.open(dataDir)) {
      IndexCollection collection = catalog.create(FULL);
      collection.ingest(FIRST);
      collection.injectFaults(
          stage -> {
            if (stage == failing) {
              throw new UncheckedIOException(new java.io.IOException("disk full (injected)"));
            }
          });

      assertThatThrownBy(() -> collection.ingest(SECOND))
          .isInstanceOf(UnavailableException.class)
          .hasMessageContaining("back at its last commit")
          .hasMessageNotContaining("disk full");
      assertHolds(collection, "a", "b");
      assertThatThrownBy(() -> collection.documents(List.of("a", "c"), "ids", stored -> {}))
          .isInstanceOf(dev.tenbin.core.NotFoundException.class)
          .extracting(e -> ((dev.tenbin.core.NotFoundException) e).field())
          .isEqualTo("ids[1]");

      collection.injectFaults(IngestFaults.NONE);
      collection.ingest(SECOND);
      assertHolds(collection, "a", "b", "c", "d");
    }
    try (CollectionCatalog reopened = CollectionCatalog.open(dataDir)) {
      assertHolds(reopened.get("c", "collection"), "a", "b", "c", "d");
    }
  }

  @Test
  void aLuceneRefusalAfterTheVectorsWereWrittenRollsThemBack() {
    try (CollectionCatalog catalog = CollectionCatalog.open(dataDir)) {
      IndexCollection collection = catalog.create(FULL);
      collection.ingest(FIRST);
      collection.injectFaults(
          stage -> {
            if (stage == IngestFaults.Stage.APPENDED) {
              throw new InvalidInputException(
                  "documents[1].text", "refused by the index (injected)");
            }
          });
      assertThatThrownBy(() -> collection.ingest(SECOND))
          .isInstanceOf(InvalidInputException.class)
          .extracting(e -> ((InvalidInputException) e).field())
          .isEqualTo("documents[1].text");
      assertHolds(collection, "a", "b");
    }
    try (CollectionCatalog reopened = CollectionCatalog.open(dataDir)) {
      assertHolds(reopened.get("c", "collection"), "a", "b");
    }
  }

  @Test
  void aRealIoErrorInTheDenseCommitRollsBackAndTheBatchCanBeSentAgain() throws Exception {
    Path manifest = dataDir.resolve("c").resolve("dense").resolve("manifest");
    Path aside = manifest.resolveSibling("manifest.aside");
    try (CollectionCatalog catalog = CollectionCatalog.open(dataDir)) {
      IndexCollection collection = catalog.create(FULL);
      collection.ingest(FIRST);
      // A folder where the manifest must be renamed to: the commit's atomic move fails.
      Files.move(manifest, aside);
      Files.createDirectory(manifest);
      Files.writeString(manifest.resolve("blocker"), "x");

      assertThatThrownBy(() -> collection.ingest(SECOND)).isInstanceOf(UnavailableException.class);
      assertHolds(collection, "a", "b");

      Files.delete(manifest.resolve("blocker"));
      Files.delete(manifest);
      Files.move(aside, manifest);
      collection.ingest(SECOND);
      assertHolds(collection, "a", "b", "c", "d");
    }
    try (CollectionCatalog reopened = CollectionCatalog.open(dataDir)) {
      assertHolds(reopened.get("c", "collection"), "a", "b", "c", "d");
    }
  }

  @Test
  void aRollbackThatFailsStopsTheCollectionUntilItIsReopenedAtItsLastCommit() {
    try (CollectionCatalog catalog = CollectionCatalog.open(dataDir)) {
      IndexCollection collection = catalog.create(FULL);
      collection.ingest(FIRST);
      // The vectors of SECOND are committed on disk, Lucene's commit fails, and so does the
      // rollback:
      // the state a crash between the two commits leaves.
      collection.injectFaults(
          stage -> {
            if (stage != IngestFaults.Stage.APPENDED) {
              throw new UncheckedIOException(new java.io.IOException("injected at " + stage));
            }
          });

      assertThatThrownBy(() -> collection.ingest(SECOND))
          .isInstanceOf(PreconditionException.class)
          .extracting(e -> ((PreconditionException) e).field())
          .isEqualTo("collection");
      assertThatThrownBy(() -> catalog.get("c", "collection"))
          .isInstanceOf(PreconditionException.class)
          .hasMessageContaining("stopped serving");
      CollectionStats stats = catalog.describe("c", "name");
      assertThat(stats.state()).isEqualTo(CollectionState.FAILED);
      assertThat(stats.error()).contains("could not be rolled back");
      assertThat(catalog.describeAll())
          .extracting(CollectionStats::state)
          .containsExactly(CollectionState.FAILED);
    }
    try (CollectionCatalog reopened = CollectionCatalog.open(dataDir)) {
      IndexCollection collection = reopened.get("c", "collection");
      assertHolds(collection, "a", "b");
      collection.ingest(SECOND);
      assertHolds(collection, "a", "b", "c", "d");
    }
  }

  @Test
  void aBatchThatFailsValidationWritesNothing() throws Exception {
    try (CollectionCatalog catalog = CollectionCatalog.open(dataDir)) {
      IndexCollection collection = catalog.create(FULL);
      collection.ingest(FIRST);
      long bytes = collection.bytesOnDisk();
      assertThatThrownBy(
              () ->
                  collection.ingest(
                      List.of(doc("c", "apple", 1, 1), doc("x".repeat(40_000), "apple", 1, 1))))
          .isInstanceOf(InvalidInputException.class)
          .hasMessageContaining("(40000 characters)")
          .extracting(e -> ((InvalidInputException) e).field())
          .isEqualTo("documents[1].id");
      assertThat(collection.bytesOnDisk()).isEqualTo(bytes);
      assertHolds(collection, "a", "b");
    }
  }
}
