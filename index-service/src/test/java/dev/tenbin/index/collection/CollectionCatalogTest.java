package dev.tenbin.index.collection;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tenbin.core.AlreadyExistsException;
import dev.tenbin.core.InvalidInputException;
import dev.tenbin.core.NotFoundException;
import dev.tenbin.index.rank.Hit;
import dev.tenbin.index.search.LexicalQuery;
import dev.tenbin.index.search.SparseQuery;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CollectionCatalogTest {
  @TempDir Path dataDir;

  @Test
  void collectionsSurviveARestart() {
    try (CollectionCatalog catalog = CollectionCatalog.open(dataDir)) {
      IndexCollection collection = catalog.create(CollectionSpec.lexical("news", "de"));
      collection.ingest(List.of(new IngestDocument("d1", "Häuser", "in Berlin")));
    }
    try (CollectionCatalog reopened = CollectionCatalog.open(dataDir)) {
      IndexCollection collection = reopened.get("news", "name");
      assertThat(collection.spec().language()).isEqualTo("de");
      assertThat(collection.size()).isEqualTo(1);
      assertThat(Searches.top(collection, new LexicalQuery("Haus"), 10))
          .extracting(Hit::docId)
          .containsExactly("d1");
    }
  }

  @Test
  void aBatchWithADuplicateIdIsRejectedWholeAndNamesTheField() {
    try (CollectionCatalog catalog = CollectionCatalog.open(dataDir)) {
      IndexCollection collection = catalog.create(CollectionSpec.lexical("c", "en"));
      collection.ingest(List.of(new IngestDocument("d1", "", "first")));
      assertThatThrownBy(
              () ->
                  collection.ingest(
                      List.of(
                          new IngestDocument("d2", "", "second"),
                          new IngestDocument("d1", "", "again"))))
          .isInstanceOf(InvalidInputException.class)
          .hasMessageContaining("duplicate document id 'd1'")
          .extracting(e -> ((InvalidInputException) e).field())
          .isEqualTo("documents[1].id");
      assertThat(collection.size()).isEqualTo(1);
      assertThat(Searches.top(collection, new LexicalQuery("second"), 10)).isEmpty();
    }
  }

  @Test
  void emptyIdsAreRejected() {
    try (CollectionCatalog catalog = CollectionCatalog.open(dataDir)) {
      IndexCollection collection = catalog.create(CollectionSpec.lexical("c", "en"));
      assertThatThrownBy(() -> collection.ingest(List.of(new IngestDocument(" ", "", "x"))))
          .isInstanceOf(InvalidInputException.class)
          .extracting(e -> ((InvalidInputException) e).field())
          .isEqualTo("documents[0].id");
    }
  }

  @Test
  void creatingTwiceIsAlreadyExistsAndUnknownIsNotFound() {
    try (CollectionCatalog catalog = CollectionCatalog.open(dataDir)) {
      catalog.create(CollectionSpec.lexical("c", "en"));
      assertThatThrownBy(() -> catalog.create(CollectionSpec.lexical("c", "en")))
          .isInstanceOf(AlreadyExistsException.class);
      assertThatThrownBy(() -> catalog.get("missing", "collection"))
          .isInstanceOf(NotFoundException.class)
          .hasMessageContaining("missing");
    }
  }

  @Test
  void droppedCollectionsAreGoneFromDiskAndCatalog() {
    try (CollectionCatalog catalog = CollectionCatalog.open(dataDir)) {
      catalog.create(CollectionSpec.lexical("c", "en"));
      assertThat(catalog.drop("c")).isTrue();
      assertThat(catalog.drop("c")).isFalse();
      assertThat(catalog.list()).isEmpty();
    }
    assertThat(Files.exists(dataDir.resolve("c"))).isFalse();
  }

  @Test
  void aFolderLeftByAnInterruptedCreateIsRemovedAtStart() throws Exception {
    CollectionCatalog.open(dataDir).close();
    Files.createDirectories(dataDir.resolve("half").resolve("bm25"));
    Files.writeString(
        dataDir.resolve("half").resolve(DataDirectory.COLLECTION_MARKER), "format=1\nname=half\n");
    try (CollectionCatalog catalog = CollectionCatalog.open(dataDir)) {
      assertThat(catalog.list()).isEmpty();
    }
    assertThat(Files.exists(dataDir.resolve("half"))).isFalse();
  }

  @Test
  void denseCollectionsStoreTheirInt8CalibrationAndAlignVectorsWithTexts() throws Exception {
    try (CollectionCatalog catalog = CollectionCatalog.open(dataDir)) {
      IndexCollection collection = catalog.create(new CollectionSpec("v", "en", null, 2, 0, 0));
      collection.ingest(
          List.of(
              new IngestDocument("a", "", "x", new float[] {1, -2}),
              new IngestDocument("b", "", "y", new float[] {3, 4})));
      String calibration =
          Files.readString(dataDir.resolve("v").resolve("dense").resolve("int8-calibration.txt"));
      assertThat(calibration)
          .contains("documents=2")
          .contains("dot.min=[1.0, -2.0]")
          .contains("dot.max=[3.0, 4.0]");
      assertThat(collection.int8Calibration().maximums()).hasSize(2);
      assertThatThrownBy(() -> collection.ingest(List.of(new IngestDocument("c", "", "z"))))
          .isInstanceOf(InvalidInputException.class)
          .extracting(e -> ((InvalidInputException) e).field())
          .isEqualTo("documents[0].dense");
    }
  }

  @Test
  void sparseSearchAndSparseRescoringOfACandidateSetAgree() {
    try (CollectionCatalog catalog = CollectionCatalog.open(dataDir)) {
      IndexCollection collection = catalog.create(new CollectionSpec("s", "en", null, 0, 10, 0));
      var a = new dev.tenbin.index.sparse.SparseDoc(new int[] {1, 2}, new float[] {1f, 2f});
      var b = new dev.tenbin.index.sparse.SparseDoc(new int[] {2, 3}, new float[] {0.5f, 4f});
      collection.ingest(
          List.of(
              new IngestDocument("a", "", "", null, a, null),
              new IngestDocument("b", "", "", null, b, null)));
      var query = new dev.tenbin.index.sparse.SparseDoc(new int[] {2, 3}, new float[] {1f, 1f});
      List<Hit> searched = Searches.top(collection, new SparseQuery(query, 0, 0), 10);
      assertThat(searched).extracting(Hit::docId).containsExactly("b", "a");
      assertThat(Searches.rescore(collection, new SparseQuery(query, 0, 0), List.of("a", "b")))
          .isEqualTo(searched);
      // Document-side pruning to one dim keeps b's weight 4 on term 3 and a's weight 2 on term 2.
      assertThat(Searches.rescore(collection, new SparseQuery(query, 0, 1), List.of("a", "b")))
          .containsExactly(new Hit("b", 4f), new Hit("a", 2f));
    }
  }

  @Test
  void invalidNamesAndLanguagesAreRejected() {
    assertThatThrownBy(() -> CollectionSpec.lexical("../escape", "en"))
        .isInstanceOf(InvalidInputException.class)
        .extracting(e -> ((InvalidInputException) e).field())
        .isEqualTo("spec.name");
    assertThatThrownBy(() -> CollectionSpec.lexical("ok", "zz-top"))
        .isInstanceOf(InvalidInputException.class)
        .extracting(e -> ((InvalidInputException) e).field())
        .isEqualTo("spec.language");
  }
}
