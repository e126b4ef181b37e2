package dev.tenbin.index.collection;

import dev.tenbin.core.AlreadyExistsException;
import dev.tenbin.core.NotFoundException;
import dev.tenbin.core.PreconditionException;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.BaseUnits;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.io.Closeable;
import java.io.File;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.function.ToDoubleFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The collections of one index service, each in its own folder of the {@link DataDirectory}. A
 * collection exists once its spec file has been written (atomically, last).
 *
 * <p>A collection that cannot be opened (damaged or mismatched files, an unreadable spec) is
 * quarantined: logged once, listed and described as {@link CollectionState#FAILED} with its error,
 * refused for search and ingest with FAILED_PRECONDITION naming {@code collection}, and still
 * droppable. It never keeps the catalog, or any other collection, from serving.
 *
 * <p>As a {@link MeterBinder} it publishes, per collection (tag {@code collection}), the gauges
 * {@code tenbin.index.collection.documents} and {@code tenbin.index.collection.disk} (bytes), and
 * {@code tenbin.index.collections} by {@code state}.
 */
public final class CollectionCatalog implements Closeable, MeterBinder {
  private static final Logger log = LoggerFactory.getLogger(CollectionCatalog.class);
  private static final int MAX_ERROR_CHARS = 500;

  private final DataDirectory dataDirectory;
  private final Map<String, IndexCollection> collections = new ConcurrentSkipListMap<>();
  private final Map<String, Quarantined> quarantined = new ConcurrentSkipListMap<>();
  private final Map<String, List<Meter>> meters = new HashMap<>();
  private MeterRegistry registry;
  private final java.util.Set<String> describeFailuresLogged =
      java.util.concurrent.ConcurrentHashMap.newKeySet();
  private boolean closed;

  /** A collection folder that could not be opened. */
  private record Quarantined(String name, Path folder, CollectionSpec spec, String error) {}

  private CollectionCatalog(DataDirectory dataDirectory) {
    this.dataDirectory = dataDirectory;
  }

  /**
   * Opens every collection under {@code dataDirectory}, which is created if missing (see {@link
   * DataDirectory#claim} for when a folder is refused). Collections that cannot be opened are
   * quarantined, not fatal.
   *
   * @throws DataDirectoryRefusedException when the folder is not the index service's to use
   */
  public static CollectionCatalog open(Path dataDirectory) {
    CollectionCatalog catalog = new CollectionCatalog(DataDirectory.claim(dataDirectory));
    for (Path folder : catalog.dataDirectory.collectionFolders()) {
      catalog.openCollection(folder);
    }
    return catalog;
  }

  private void openCollection(Path folder) {
    String name = folder.getFileName().toString();
    CollectionSpec spec = null;
    try {
      spec = CollectionSpec.readFrom(folder.resolve(DataDirectory.SPEC_FILE));
      if (!spec.name().equals(name)) {
        throw new IllegalStateException(
            "its spec names it " + Excerpt.of(spec.name()) + ", not after its folder");
      }
      collections.put(name, IndexCollection.open(spec, folder, false));
    } catch (RuntimeException | StackOverflowError | OutOfMemoryError e) {
      String error = "cannot be opened: " + describe(e);
      log.error("quarantining collection {} in {}: {}", name, folder, error, e);
      quarantined.put(name, new Quarantined(name, folder, spec, error));
    }
  }

  /** A failure as an operator reads it: its messages, paths relative to the data directory, cut. */
  private String describe(Throwable failure) {
    String message =
        failure.getMessage() == null ? failure.getClass().getSimpleName() : failure.getMessage();
    Throwable cause = failure.getCause();
    if (cause != null && cause.getMessage() != null && !message.contains(cause.getMessage())) {
      message += " (" + cause.getClass().getSimpleName() + ": " + cause.getMessage() + ")";
    }
    String root = dataDirectory.root().toAbsolutePath().toString();
    message =
        message
            .replace(root + File.separator, "")
            .replace(dataDirectory.root() + File.separator, "");
    return message.length() <= MAX_ERROR_CHARS
        ? message
        : message.substring(0, MAX_ERROR_CHARS) + "…";
  }

  /** Creates a collection: its folder and marker, its stores, then its spec (last). */
  public synchronized IndexCollection create(CollectionSpec spec) {
    if (collections.containsKey(spec.name()) || quarantined.containsKey(spec.name())) {
      throw new AlreadyExistsException(
          "spec.name", "collection " + Excerpt.of(spec.name()) + " already exists");
    }
    Path folder = dataDirectory.createCollectionFolder(spec.name());
    IndexCollection collection = null;
    try {
      collection = IndexCollection.open(spec, folder, true);
      dataDirectory.publishSpec(folder, spec);
    } catch (RuntimeException | Error e) {
      try {
        if (collection != null) {
          collection.close();
        }
        dataDirectory.deleteCollectionFolder(folder);
      } catch (RuntimeException suppressed) {
        e.addSuppressed(suppressed);
      }
      throw e;
    }
    collections.put(spec.name(), collection);
    registerGauges(collection);
    return collection;
  }

  /**
   * The named collection, ready to serve.
   *
   * @throws NotFoundException naming {@code field} when there is none
   * @throws PreconditionException naming {@code field} when it is quarantined
   */
  public IndexCollection get(String name, String field) {
    String key = name == null ? "" : name;
    IndexCollection collection = collections.get(key);
    if (collection == null) {
      Quarantined broken = quarantined.get(key);
      if (broken != null) {
        throw new PreconditionException(
            field, "collection " + Excerpt.of(key) + " is quarantined: it " + broken.error());
      }
      throw new NotFoundException(field, "no collection named " + Excerpt.of(key));
    }
    String failure = collection.failure();
    if (failure != null) {
      throw new PreconditionException(
          field, "collection " + Excerpt.of(key) + " stopped serving: " + failure);
    }
    return collection;
  }

  /**
   * What describing the named collection reports, quarantined ones included.
   *
   * @throws NotFoundException naming {@code field} when there is none
   */
  public CollectionStats describe(String name, String field) {
    String key = name == null ? "" : name;
    IndexCollection collection = collections.get(key);
    if (collection != null) {
      return describe(collection);
    }
    Quarantined broken = quarantined.get(key);
    if (broken == null) {
      throw new NotFoundException(field, "no collection named " + Excerpt.of(key));
    }
    return failed(broken.name(), broken.spec(), broken.error(), broken.folder());
  }

  /**
   * Every collection, by name, quarantined ones included; one that cannot be described is FAILED.
   */
  public List<CollectionStats> describeAll() {
    TreeSet<String> names = new TreeSet<>(collections.keySet());
    names.addAll(quarantined.keySet());
    List<CollectionStats> all = new ArrayList<>(names.size());
    for (String name : names) {
      try {
        all.add(describe(name, "name"));
      } catch (NotFoundException droppedMeanwhile) {
        // Dropped while listing.
      }
    }
    return all;
  }

  private CollectionStats describe(IndexCollection collection) {
    try {
      return collection.stats();
    } catch (RuntimeException e) {
      if (describeFailuresLogged.add(collection.spec().name())) {
        log.error("collection {} cannot be described (logged once)", collection.spec().name(), e);
      }
      return new CollectionStats(
          collection.spec().name(),
          collection.spec(),
          CollectionState.FAILED,
          "cannot be described: " + describe(e),
          0,
          -1,
          null,
          false);
    }
  }

  private CollectionStats failed(String name, CollectionSpec spec, String error, Path folder) {
    long bytes;
    try (var files = java.nio.file.Files.walk(folder)) {
      bytes =
          files
              .filter(java.nio.file.Files::isRegularFile)
              .mapToLong(p -> p.toFile().length())
              .sum();
    } catch (java.io.IOException | RuntimeException e) {
      bytes = -1;
    }
    return new CollectionStats(name, spec, CollectionState.FAILED, error, 0, bytes, null, false);
  }

  /** The open collections (quarantined ones are not). */
  public List<IndexCollection> list() {
    return new ArrayList<>(collections.values());
  }

  /** Drops a collection, quarantined ones included; false when it did not exist. */
  public synchronized boolean drop(String name) {
    String key = name == null ? "" : name;
    IndexCollection collection = collections.remove(key);
    Path folder;
    if (collection != null) {
      removeGauges(key);
      folder = dataDirectory.root().resolve(key);
      try {
        collection.close();
      } catch (RuntimeException e) {
        log.warn("collection {} did not close cleanly before its drop", key, e);
      }
    } else {
      Quarantined broken = quarantined.remove(key);
      if (broken == null) {
        return false;
      }
      folder = broken.folder();
    }
    dataDirectory.deleteCollectionFolder(folder);
    return true;
  }

  @Override
  public synchronized void bindTo(MeterRegistry registry) {
    this.registry = registry;
    Gauge.builder("tenbin.index.collections", this, c -> c.count(CollectionState.READY))
        .description("Collections of the index service by state")
        .tag("state", "ready")
        .register(registry);
    Gauge.builder("tenbin.index.collections", this, c -> c.count(CollectionState.FAILED))
        .description("Collections of the index service by state")
        .tag("state", "failed")
        .register(registry);
    collections.values().forEach(this::registerGauges);
  }

  private double count(CollectionState state) {
    long failedOpen = collections.values().stream().filter(c -> c.failure() != null).count();
    return state == CollectionState.READY
        ? collections.size() - failedOpen
        : quarantined.size() + failedOpen;
  }

  private synchronized void registerGauges(IndexCollection collection) {
    if (registry == null) {
      return;
    }
    String name = collection.spec().name();
    meters.put(
        name,
        List.of(
            gauge("tenbin.index.collection.documents", name, collection, IndexCollection::size)
                .description("Committed documents of a collection")
                .baseUnit("documents")
                .register(registry),
            gauge("tenbin.index.collection.disk", name, collection, IndexCollection::bytesOnDisk)
                .description("Bytes a collection's files take on disk")
                .baseUnit(BaseUnits.BYTES)
                .register(registry)));
  }

  private static Gauge.Builder<IndexCollection> gauge(
      String meter,
      String name,
      IndexCollection collection,
      ToDoubleFunction<IndexCollection> value) {
    return Gauge.builder(
            meter,
            collection,
            c -> {
              try {
                return value.applyAsDouble(c);
              } catch (RuntimeException closedMeanwhile) {
                return Double.NaN;
              }
            })
        .tag("collection", name)
        .strongReference(false);
  }

  private synchronized void removeGauges(String name) {
    List<Meter> registered = meters.remove(name);
    if (registered != null && registry != null) {
      registered.forEach(registry::remove);
    }
  }

  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    try {
      for (IndexCollection collection : collections.values()) {
        try {
          collection.close();
        } catch (RuntimeException e) {
          log.warn("collection {} did not close cleanly", collection.spec().name(), e);
        }
      }
      collections.clear();
      quarantined.clear();
    } finally {
      dataDirectory.close();
    }
  }
}
