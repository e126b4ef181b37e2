package dev.tenbin.index.collection;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The catalog's gauges: documents and bytes on disk per collection, collections by state. */
class CollectionMetricsTest {
  @TempDir Path dataDir;

  @Test
  void gaugesFollowEachCollectionFromCreateToDrop() throws Exception {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    try (CollectionCatalog catalog = CollectionCatalog.open(dataDir)) {
      catalog
          .create(CollectionSpec.lexical("before", "en"))
          .ingest(List.of(new IngestDocument("a", "", "apple")));
      catalog.bindTo(registry);
      IndexCollection after = catalog.create(CollectionSpec.lexical("after", "en"));
      after.ingest(
          List.of(new IngestDocument("a", "", "apple"), new IngestDocument("b", "", "pear")));

      assertThat(
              registry
                  .get("tenbin.index.collection.documents")
                  .tag("collection", "before")
                  .gauge()
                  .value())
          .isEqualTo(1);
      assertThat(
              registry
                  .get("tenbin.index.collection.documents")
                  .tag("collection", "after")
                  .gauge()
                  .value())
          .isEqualTo(2);
      double bytes =
          registry.get("tenbin.index.collection.disk").tag("collection", "after").gauge().value();
      long onDisk;
      try (var files = Files.walk(dataDir.resolve("after"))) {
        onDisk = files.filter(Files::isRegularFile).mapToLong(p -> p.toFile().length()).sum();
      }
      assertThat(bytes).isPositive().isEqualTo(onDisk);
      assertThat(registry.get("tenbin.index.collections").tag("state", "ready").gauge().value())
          .isEqualTo(2);

      catalog.drop("after");
      assertThat(
              registry.find("tenbin.index.collection.documents").tag("collection", "after").gauge())
          .isNull();
      assertThat(registry.get("tenbin.index.collections").tag("state", "ready").gauge().value())
          .isEqualTo(1);
    }
  }

  @Test
  void quarantinedCollectionsAreCountedAsFailed() throws Exception {
    try (CollectionCatalog catalog = CollectionCatalog.open(dataDir)) {
      catalog.create(CollectionSpec.lexical("broken", "en"));
      catalog.create(CollectionSpec.lexical("fine", "en"));
    }
    Files.writeString(dataDir.resolve("broken").resolve(DataDirectory.SPEC_FILE), "garbage");
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    try (CollectionCatalog catalog = CollectionCatalog.open(dataDir)) {
      catalog.bindTo(registry);
      assertThat(registry.get("tenbin.index.collections").tag("state", "failed").gauge().value())
          .isEqualTo(1);
      assertThat(registry.get("tenbin.index.collections").tag("state", "ready").gauge().value())
          .isEqualTo(1);
      assertThat(
              registry
                  .find("tenbin.index.collection.documents")
                  .tag("collection", "broken")
                  .gauge())
          .isNull();
    }
  }
}
