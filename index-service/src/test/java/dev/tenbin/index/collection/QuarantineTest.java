package dev.tenbin.index.collection;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tenbin.core.PreconditionException;
import dev.tenbin.index.rank.Hit;
import dev.tenbin.index.search.LexicalQuery;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.function.Consumer;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** A collection that cannot be opened is reported and quarantined; the others keep serving. */
class QuarantineTest {
  @TempDir Path dataDir;

  /** Damages collection {@code broken} one way; each leaves a folder the service cannot open. */
  private static void damage(Path folder, String how) throws Exception {
    switch (how) {
      case "spec-garbage" ->
          Files.writeString(folder.resolve(DataDirectory.SPEC_FILE), "name=broken\nbm25.k1=fast\n");
      case "spec-renamed" ->
          Files.writeString(
              folder.resolve(DataDirectory.SPEC_FILE),
              Files.readString(folder.resolve(DataDirectory.SPEC_FILE))
                  .replace("name=broken", "name=other"));
      case "dense-short" ->
          Files.write(folder.resolve("dense").resolve("vectors.f32"), new byte[3]);
      case "dense-manifest" ->
          Files.writeString(
              folder.resolve("dense").resolve("manifest"), "count=lots\ndimension=2\n");
      case "dense-dimension" ->
          Files.writeString(folder.resolve("dense").resolve("manifest"), "count=2\ndimension=3\n");
      case "dense-behind" ->
          Files.writeString(folder.resolve("dense").resolve("manifest"), "count=1\ndimension=2\n");
      case "lucene-segments" -> {
        try (var files = Files.list(folder.resolve("bm25"))) {
          for (Path file :
              files.filter(p -> p.getFileName().toString().startsWith("segments_")).toList()) {
            Files.write(file, new byte[] {1, 2, 3, 4});
          }
        }
      }
      case "lucene-deleted" -> {
        // What a failed ingest of the older version left: a refused document kept as deleted.
        try (var writer =
            new org.apache.lucene.index.IndexWriter(
                org.apache.lucene.store.FSDirectory.open(folder.resolve("bm25")),
                new org.apache.lucene.index.IndexWriterConfig()
                    .setMergePolicy(org.apache.lucene.index.NoMergePolicy.INSTANCE))) {
          writer.deleteDocuments(new org.apache.lucene.index.Term("id", "a"));
          writer.commit();
        }
      }
      case "lucene-merged" -> {
        // A document removed by another writer: the ordinals of the rest would shift under the
        // vectors.
        try (var writer =
            new org.apache.lucene.index.IndexWriter(
                org.apache.lucene.store.FSDirectory.open(folder.resolve("bm25")),
                new org.apache.lucene.index.IndexWriterConfig())) {
          writer.deleteDocuments(new org.apache.lucene.index.Term("id", "a"));
          writer.forceMerge(1);
          writer.commit();
        }
      }
      case "lucene-gone" -> {
        try (var files = Files.list(folder.resolve("bm25"))) {
          for (Path file : files.toList()) {
            Files.delete(file);
          }
        }
      }
      default -> throw new IllegalArgumentException(how);
    }
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "spec-garbage",
        "spec-renamed",
        "dense-short",
        "dense-manifest",
        "dense-dimension",
        "dense-behind",
        "lucene-segments",
        "lucene-deleted",
        "lucene-merged",
        "lucene-gone"
      })
  void aDamagedCollectionIsQuarantinedListedAndDroppableWhileTheOthersServe(String how)
      throws Exception {
    try (CollectionCatalog catalog = CollectionCatalog.open(dataDir)) {
      for (String name : List.of("broken", "healthy")) {
        catalog
            .create(new CollectionSpec(name, "en", null, 2, 0, 0))
            .ingest(
                List.of(
                    new IngestDocument("a", "", "apple", new float[] {1, 0}),
                    new IngestDocument("b", "", "apple pie", new float[] {0, 1})));
      }
    }
    damage(dataDir.resolve("broken"), how);

    try (CollectionCatalog catalog = CollectionCatalog.open(dataDir)) {
      assertThat(catalog.describeAll())
          .extracting(s -> s.name() + ":" + s.state())
          .containsExactly("broken:FAILED", "healthy:READY");
      CollectionStats broken = catalog.describe("broken", "name");
      assertThat(broken.error())
          .startsWith("cannot be opened")
          .hasSizeLessThan(700)
          .doesNotContain(dataDir.toString());
      Consumer<String> refused =
          field ->
              assertThatThrownBy(() -> catalog.get("broken", field))
                  .isInstanceOf(PreconditionException.class)
                  .hasMessageContaining("quarantined")
                  .extracting(e -> ((PreconditionException) e).field())
                  .isEqualTo(field);
      refused.accept("collection");
      assertThatThrownBy(() -> catalog.create(CollectionSpec.lexical("broken", "en")))
          .isInstanceOf(dev.tenbin.core.AlreadyExistsException.class);
      assertThat(Searches.top(catalog.get("healthy", "collection"), new LexicalQuery("pie"), 10))
          .extracting(Hit::docId)
          .containsExactly("b");

      assertThat(catalog.drop("broken")).isTrue();
      assertThat(dataDir.resolve("broken")).doesNotExist();
      assertThat(catalog.describeAll())
          .extracting(CollectionStats::name)
          .containsExactly("healthy");
      catalog.create(CollectionSpec.lexical("broken", "en"));
    }
  }
}
