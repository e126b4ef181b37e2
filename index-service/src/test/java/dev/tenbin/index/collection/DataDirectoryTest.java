package dev.tenbin.index.collection;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tenbin.core.PreconditionException;
import dev.tenbin.index.rank.Hit;
import dev.tenbin.index.search.LexicalQuery;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The index service deletes nothing it did not create, and refuses a data directory not its own.
 */
class DataDirectoryTest {
  @TempDir Path tmp;

  /** Every file under {@code root} with its content, to compare before and after. */
  private static Map<String, String> snapshot(Path root) throws Exception {
    Map<String, String> files = new TreeMap<>();
    try (Stream<Path> paths = Files.walk(root)) {
      for (Path path : paths.toList()) {
        files.put(
            root.relativize(path).toString(),
            Files.isRegularFile(path)
                ? java.util.Arrays.toString(Files.readAllBytes(path))
                : "<dir>");
      }
    }
    return files;
  }

  @Test
  void aMissingDataDirectoryIsCreatedWithItsMarker() {
    Path dataDir = tmp.resolve("a").resolve("b");
    CollectionCatalog.open(dataDir).close();
    assertThat(dataDir.resolve(DataDirectory.ROOT_MARKER)).content().contains("format=1");
  }

  @Test
  void anEmptyDataDirectoryIsInitialised() throws Exception {
    Path dataDir = Files.createDirectories(tmp.resolve("empty"));
    try (CollectionCatalog catalog = CollectionCatalog.open(dataDir)) {
      catalog.create(CollectionSpec.lexical("c", "en"));
    }
    assertThat(dataDir.resolve(DataDirectory.ROOT_MARKER)).exists();
    assertThat(dataDir.resolve("c").resolve(DataDirectory.COLLECTION_MARKER))
        .content()
        .contains("name=c");
  }

  @Test
  void aFreshVolumeHoldingOnlyLostAndFoundIsInitialisedAndLostAndFoundLeftAlone() throws Exception {
    Path volume = Files.createDirectories(tmp.resolve("volume"));
    Files.createDirectories(volume.resolve("lost+found"));
    Files.writeString(volume.resolve("lost+found").resolve("#1234"), "recovered");
    try (CollectionCatalog catalog = CollectionCatalog.open(volume)) {
      catalog.create(CollectionSpec.lexical("c", "en"));
    }
    try (CollectionCatalog catalog = CollectionCatalog.open(volume)) {
      assertThat(catalog.describeAll()).extracting(CollectionStats::name).containsExactly("c");
    }
    assertThat(volume.resolve("lost+found").resolve("#1234")).hasContent("recovered");
  }

  @Test
  void aFolderHoldingOtherFilesIsRefusedAndLeftUntouched() throws Exception {
    Path home = Files.createDirectories(tmp.resolve("home"));
    Files.createDirectories(home.resolve("photos"));
    Files.writeString(home.resolve("photos").resolve("cat.txt"), "meow");
    Files.writeString(home.resolve("notes.txt"), "remember");
    Files.createDirectories(home.resolve("half-created").resolve("bm25"));
    Map<String, String> before = snapshot(home);

    assertThatThrownBy(() -> CollectionCatalog.open(home))
        .isInstanceOf(DataDirectoryRefusedException.class)
        .hasMessageContaining("is not an index data directory")
        .hasMessageContaining("'photos'")
        .hasMessageContaining("'notes.txt'")
        .hasMessageContaining("Nothing was changed");
    assertThat(snapshot(home)).isEqualTo(before);
  }

  @Test
  void aDataDirectoryOfAnOlderVersionIsAdopted() throws Exception {
    Path dataDir = tmp.resolve("old");
    try (CollectionCatalog catalog = CollectionCatalog.open(dataDir)) {
      catalog
          .create(CollectionSpec.lexical("news", "en"))
          .ingest(List.of(new IngestDocument("d1", "", "apple")));
    }
    // As the version before markers left it.
    Files.delete(dataDir.resolve(DataDirectory.ROOT_MARKER));
    Files.delete(dataDir.resolve("news").resolve(DataDirectory.COLLECTION_MARKER));

    try (CollectionCatalog catalog = CollectionCatalog.open(dataDir)) {
      assertThat(Searches.top(catalog.get("news", "name"), new LexicalQuery("apple"), 10))
          .extracting(Hit::docId)
          .containsExactly("d1");
      assertThat(catalog.drop("news")).isTrue();
    }
    assertThat(dataDir.resolve(DataDirectory.ROOT_MARKER)).exists();
    assertThat(dataDir.resolve("news")).doesNotExist();
  }

  @Test
  void anOlderDataDirectoryWithAFolderThatIsNoCollectionIsRefused() throws Exception {
    Path dataDir = tmp.resolve("old");
    try (CollectionCatalog catalog = CollectionCatalog.open(dataDir)) {
      catalog.create(CollectionSpec.lexical("news", "en"));
    }
    Files.delete(dataDir.resolve(DataDirectory.ROOT_MARKER));
    Files.createDirectories(dataDir.resolve("backup"));
    Map<String, String> before = snapshot(dataDir);

    assertThatThrownBy(() -> CollectionCatalog.open(dataDir))
        .isInstanceOf(DataDirectoryRefusedException.class)
        .hasMessageContaining("'backup'");
    assertThat(snapshot(dataDir)).isEqualTo(before);
  }

  @Test
  void foldersTheServiceDidNotCreateAreLeftAloneAndNeverReplaced() throws Exception {
    Path dataDir = tmp.resolve("data");
    CollectionCatalog.open(dataDir).close();
    Files.createDirectories(dataDir.resolve("notes"));
    Files.writeString(dataDir.resolve("notes").resolve("todo.txt"), "keep me");
    Files.createDirectories(dataDir.resolve("unmarked").resolve("bm25"));
    Files.writeString(dataDir.resolve("README"), "mine");
    Map<String, String> before = snapshot(dataDir);

    try (CollectionCatalog catalog = CollectionCatalog.open(dataDir)) {
      assertThat(catalog.describeAll()).isEmpty();
      assertThatThrownBy(() -> catalog.create(CollectionSpec.lexical("notes", "en")))
          .isInstanceOf(PreconditionException.class)
          .extracting(e -> ((PreconditionException) e).field())
          .isEqualTo("spec.name");
      assertThat(catalog.drop("notes")).isFalse();
    }
    assertThat(snapshot(dataDir)).isEqualTo(before);
  }

  @Test
  void aDataDirectoryOfANewerFormatIsRefused() throws Exception {
    Path dataDir = tmp.resolve("data");
    CollectionCatalog.open(dataDir).close();
    Files.writeString(dataDir.resolve(DataDirectory.ROOT_MARKER), "format=2\n");
    assertThatThrownBy(() -> CollectionCatalog.open(dataDir))
        .isInstanceOf(DataDirectoryRefusedException.class)
        .hasMessageContaining("newer");
  }

  @Test
  void aSecondCatalogOnTheSameFolderIsRefusedUntilTheFirstCloses() {
    Path dataDir = tmp.resolve("data");
    try (CollectionCatalog first = CollectionCatalog.open(dataDir)) {
      assertThatThrownBy(() -> CollectionCatalog.open(dataDir))
          .isInstanceOf(DataDirectoryRefusedException.class)
          .hasMessageContaining("in use");
    }
    CollectionCatalog.open(dataDir).close();
  }
}
