package dev.tenbin.index.collection;

import dev.tenbin.core.AlreadyExistsException;
import dev.tenbin.core.NotFoundException;
import java.io.Closeable;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The collections of one index service, each in its own folder under the data directory. A
 * collection exists once its spec file has been written (atomically, last); folders without one
 * are leftovers of an interrupted create and are removed at start.
 */
public final class CollectionCatalog implements Closeable {
  private static final Logger log = LoggerFactory.getLogger(CollectionCatalog.class);
  static final String SPEC_FILE = "collection.properties";

  private final Path dataDirectory;
  private final Map<String, IndexCollection> collections = new ConcurrentSkipListMap<>();

  private CollectionCatalog(Path dataDirectory) {
    this.dataDirectory = dataDirectory;
  }

  /** Opens every collection persisted under {@code dataDirectory} (created if missing). */
  public static CollectionCatalog open(Path dataDirectory) {
    CollectionCatalog catalog = new CollectionCatalog(dataDirectory);
    try {
      Files.createDirectories(dataDirectory);
      try (DirectoryStream<Path> dirs = Files.newDirectoryStream(dataDirectory, Files::isDirectory)) {
        for (Path dir : dirs) {
          Path specFile = dir.resolve(SPEC_FILE);
          if (Files.exists(specFile)) {
            CollectionSpec spec = CollectionSpec.readFrom(specFile);
            catalog.collections.put(spec.name(), IndexCollection.open(spec, dir));
          } else {
            log.warn("removing {}: an interrupted collection create left it without a spec", dir);
            deleteRecursively(dir);
          }
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot open the data directory " + dataDirectory, e);
    }
    return catalog;
  }

  public synchronized IndexCollection create(CollectionSpec spec) {
    if (collections.containsKey(spec.name())) {
      throw new AlreadyExistsException(
          "spec.name", "collection '" + spec.name() + "' already exists");
    }
    Path dir = dataDirectory.resolve(spec.name());
    try {
      if (Files.exists(dir)) {
        deleteRecursively(dir);
      }
      Files.createDirectories(dir);
      IndexCollection collection = IndexCollection.open(spec, dir);
      Path tmp = dir.resolve(SPEC_FILE + ".tmp");
      spec.writeTo(tmp);
      Files.move(tmp, dir.resolve(SPEC_FILE), StandardCopyOption.ATOMIC_MOVE);
      collections.put(spec.name(), collection);
      return collection;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create collection " + spec.name(), e);
    }
  }

  /** The named collection, or NOT_FOUND naming {@code field}. */
  public IndexCollection get(String name, String field) {
    IndexCollection collection = collections.get(name == null ? "" : name);
    if (collection == null) {
      throw new NotFoundException(field, "no collection named '" + name + "'");
    }
    return collection;
  }

  public List<IndexCollection> list() {
    return new ArrayList<>(collections.values());
  }

  /** Drops a collection; false when it did not exist. */
  public synchronized boolean drop(String name) {
    IndexCollection collection = collections.remove(name == null ? "" : name);
    if (collection == null) {
      return false;
    }
    collection.close();
    Path dir = dataDirectory.resolve(name);
    try {
      // The spec goes first, so a crash mid-delete leaves a folder the next start removes.
      Files.deleteIfExists(dir.resolve(SPEC_FILE));
      deleteRecursively(dir);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot delete collection folder " + dir, e);
    }
    return true;
  }

  private static void deleteRecursively(Path dir) throws IOException {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(dir)) {
      for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(path);
      }
    }
  }

  @Override
  public void close() {
    for (IndexCollection collection : collections.values()) {
      collection.close();
    }
    collections.clear();
  }
}
