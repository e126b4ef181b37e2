package dev.tenbin.index.collection;

import dev.tenbin.core.PreconditionException;
import dev.tenbin.index.storage.DurableFiles;
import java.io.Closeable;
import java.io.IOException;
import java.io.StringReader;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Properties;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The index service's data directory, and the rule that it deletes nothing it did not create.
 *
 * <h2>Markers</h2>
 *
 * <ul>
 *   <li>{@value #ROOT_MARKER} at the root, holding the layout's {@code format}, is written when the
 *       service initialises an empty or missing folder. A folder with files but no marker is not
 *       the service's and is refused ({@link DataDirectoryRefusedException}), untouched; the one
 *       exception is a directory written before markers existed, see {@link #claim}.
 *   <li>{@value #COLLECTION_MARKER} is the first file written into a new collection folder; the
 *       spec ({@value #SPEC_FILE}) is the last. A folder with the marker but no spec is what an
 *       interrupted create or drop leaves, and is removed at start. A folder without the marker is
 *       never deleted: not at start, not by a create that wants its name.
 * </ul>
 *
 * The marker file is also locked while a service uses the directory, so a second service on the
 * same folder is refused rather than left to corrupt it.
 */
final class DataDirectory implements Closeable {
  private static final Logger log = LoggerFactory.getLogger(DataDirectory.class);
  static final String ROOT_MARKER = ".tenbin-index";
  static final String COLLECTION_MARKER = ".tenbin-collection";
  static final String SPEC_FILE = "collection.properties";
  static final int FORMAT = 1;
  private static final java.util.Set<String> IGNORED =
      java.util.Set.of(ROOT_MARKER + ".tmp", "lost+found");
  private static final Pattern COLLECTION_NAME =
      Pattern.compile("[A-Za-z0-9_-][A-Za-z0-9._-]{0,127}");

  private final Path root;
  private final FileChannel lockChannel;
  private final FileLock lock;

  private DataDirectory(Path root, FileChannel lockChannel, FileLock lock) {
    this.root = root;
    this.lockChannel = lockChannel;
    this.lock = lock;
  }

  /**
   * Takes {@code root} for the index service. A missing or empty folder is initialised with the
   * root marker; a folder with the marker is used as it is. A non-empty folder without the marker
   * is adopted only when it is a data directory of an older version: every entry a folder holding a
   * collection spec ({@value #SPEC_FILE}); each then gets its collection marker and the root its
   * marker. Anything else is refused. A {@code lost+found} folder (a formatted volume's) does not
   * count and is never touched.
   *
   * @throws DataDirectoryRefusedException when the folder is not the service's, is of a newer
   *     format, or is in use by another index service
   */
  static DataDirectory claim(Path root) {
    try {
      if (Files.exists(root) && !Files.isDirectory(root)) {
        throw new DataDirectoryRefusedException(root + " is a file, not a folder");
      }
      Path marker = root.resolve(ROOT_MARKER);
      if (!Files.exists(marker)) {
        List<Path> entries = entries(root);
        if (entries.isEmpty()) {
          Files.createDirectories(root);
          writeRootMarker(marker);
          log.info("initialised the index data directory {}", root);
        } else {
          adoptLegacy(root, entries);
          writeRootMarker(marker);
        }
      }
      checkFormat(marker);
      return lock(root, marker);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot open the index data directory " + root, e);
    }
  }

  private static List<Path> entries(Path root) throws IOException {
    if (!Files.exists(root)) {
      return List.of();
    }
    try (Stream<Path> list = Files.list(root)) {
      // A marker's temporary file is what an interrupted initialisation leaves; lost+found is what
      // a freshly formatted volume (a Kubernetes persistent volume) holds. Neither is ever touched.
      return list.filter(p -> !IGNORED.contains(p.getFileName().toString())).sorted().toList();
    }
  }

  private static void adoptLegacy(Path root, List<Path> entries) throws IOException {
    List<String> foreign = new ArrayList<>();
    for (Path entry : entries) {
      if (!isCollectionFolder(entry)) {
        foreign.add(entry.getFileName().toString());
      }
    }
    if (!foreign.isEmpty()) {
      throw new DataDirectoryRefusedException(
          root
              + " is not an index data directory: it has no "
              + ROOT_MARKER
              + " marker and holds "
              + describe(foreign)
              + ", which the index service did not create. Nothing was changed. Give an empty"
              + " or missing folder, or one the index service created.");
    }
    for (Path entry : entries) {
      writeCollectionMarker(entry);
    }
    log.warn(
        "adopted {} as an index data directory of an older version ({} collection folder(s), each with {})",
        root,
        entries.size(),
        SPEC_FILE);
  }

  private static String describe(List<String> names) {
    List<String> shown = names.stream().limit(5).map(Excerpt::of).toList();
    return String.join(", ", shown)
        + (names.size() > shown.size() ? " and " + (names.size() - shown.size()) + " more" : "");
  }

  /**
   * A folder (not a link) with a collection's name and a spec file: an older version's collection.
   */
  private static boolean isCollectionFolder(Path entry) {
    return Files.isDirectory(entry, LinkOption.NOFOLLOW_LINKS)
        && COLLECTION_NAME.matcher(entry.getFileName().toString()).matches()
        && Files.isRegularFile(entry.resolve(SPEC_FILE), LinkOption.NOFOLLOW_LINKS);
  }

  private static void writeRootMarker(Path marker) throws IOException {
    DurableFiles.replace(
        marker,
        "# Tenbin index data directory. The index service deletes only collection folders it created\n"
            + "# (those holding "
            + COLLECTION_MARKER
            + ").\nformat="
            + FORMAT
            + "\n");
  }

  private static void checkFormat(Path marker) throws IOException {
    Properties properties = new Properties();
    try {
      properties.load(new StringReader(Files.readString(marker, StandardCharsets.UTF_8)));
      int format = Integer.parseInt(properties.getProperty("format", "").trim());
      if (format > FORMAT) {
        throw new DataDirectoryRefusedException(
            marker.getParent()
                + " was written by a newer index service (format "
                + format
                + "; this one reads "
                + FORMAT
                + ")");
      }
    } catch (NumberFormatException | java.nio.charset.CharacterCodingException e) {
      throw new DataDirectoryRefusedException(marker + " is damaged: it holds no format number");
    }
  }

  private static DataDirectory lock(Path root, Path marker) throws IOException {
    FileChannel channel =
        FileChannel.open(marker, StandardOpenOption.READ, StandardOpenOption.WRITE);
    try {
      FileLock lock = channel.tryLock();
      if (lock == null) {
        throw new OverlappingFileLockException();
      }
      return new DataDirectory(root, channel, lock);
    } catch (OverlappingFileLockException e) {
      channel.close();
      throw new DataDirectoryRefusedException(root + " is in use by another index service");
    } catch (IOException | RuntimeException e) {
      channel.close();
      throw e;
    }
  }

  Path root() {
    return root;
  }

  /**
   * The collection folders: those holding a spec, each given its marker if it lacks one. Folders
   * with the marker but no spec (an interrupted create or drop) are removed; everything else is
   * left alone and logged.
   */
  List<Path> collectionFolders() {
    List<Path> folders = new ArrayList<>();
    try (DirectoryStream<Path> entries = Files.newDirectoryStream(root)) {
      for (Path entry : entries) {
        String name = entry.getFileName().toString();
        if (name.equals(ROOT_MARKER) || IGNORED.contains(name)) {
          continue;
        }
        boolean folder = Files.isDirectory(entry, LinkOption.NOFOLLOW_LINKS);
        if (folder
            && COLLECTION_NAME.matcher(name).matches()
            && Files.exists(entry.resolve(SPEC_FILE))) {
          writeCollectionMarker(entry);
          folders.add(entry);
        } else if (folder && isOurs(entry)) {
          log.warn(
              "removing {}: an interrupted collection create or drop left it without a spec",
              entry);
          deleteTree(entry);
        } else {
          log.warn("leaving {} alone: the index service did not create it", entry);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot list the index data directory " + root, e);
    }
    folders.sort(Comparator.naturalOrder());
    return folders;
  }

  /**
   * Creates the folder of a new collection with its marker.
   *
   * @throws PreconditionException when a folder of that name that the service did not create is in
   *     the way (a leftover of its own is removed first)
   */
  Path createCollectionFolder(String name) {
    Path folder = root.resolve(name);
    try {
      if (Files.exists(folder, LinkOption.NOFOLLOW_LINKS)) {
        if (!Files.isDirectory(folder, LinkOption.NOFOLLOW_LINKS)
            || !isOurs(folder)
            || Files.exists(folder.resolve(SPEC_FILE))) {
          throw new PreconditionException(
              "spec.name",
              "the data directory already holds "
                  + Excerpt.of(name)
                  + ", which the index service did not create"
                  + " as a collection; choose another name, or have an operator move it away");
        }
        deleteTree(folder);
      }
      Files.createDirectory(folder);
      writeCollectionMarker(folder);
      DurableFiles.forceDirectory(root);
      return folder;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create the collection folder " + folder, e);
    }
  }

  /** Writes the spec, last, making the folder a collection. */
  void publishSpec(Path folder, CollectionSpec spec) {
    try {
      DurableFiles.replace(folder.resolve(SPEC_FILE), spec.toProperties());
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write the spec of collection " + spec.name(), e);
    }
  }

  /**
   * Deletes a collection folder the service created: the spec first (a crash then leaves a marked
   * folder without a spec, removed at the next start), the marker last. A folder without the marker
   * is left alone and false returned.
   */
  boolean deleteCollectionFolder(Path folder) {
    if (!isOurs(folder)) {
      log.warn("not deleting {}: it carries no {} marker", folder, COLLECTION_MARKER);
      return false;
    }
    try {
      Files.deleteIfExists(folder.resolve(SPEC_FILE));
      deleteTree(folder);
      return true;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot delete the collection folder " + folder, e);
    }
  }

  private static boolean isOurs(Path folder) {
    return Files.isRegularFile(folder.resolve(COLLECTION_MARKER), LinkOption.NOFOLLOW_LINKS);
  }

  private static void writeCollectionMarker(Path folder) throws IOException {
    Path marker = folder.resolve(COLLECTION_MARKER);
    if (!Files.exists(marker)) {
      DurableFiles.replace(
          marker,
          "# Created by the Tenbin index service: it may delete this folder.\nformat="
              + FORMAT
              + "\nname="
              + folder.getFileName()
              + "\n");
    }
  }

  /**
   * Deletes a folder's contents, then its marker, then the folder; links are removed, not followed.
   */
  private static void deleteTree(Path folder) throws IOException {
    Path marker = folder.resolve(COLLECTION_MARKER);
    try (Stream<Path> paths = Files.walk(folder)) {
      for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
        if (!path.equals(marker) && !path.equals(folder)) {
          Files.deleteIfExists(path);
        }
      }
    }
    Files.deleteIfExists(marker);
    Files.deleteIfExists(folder);
  }

  @Override
  public synchronized void close() {
    if (!lockChannel.isOpen()) {
      return;
    }
    try (FileChannel channel = lockChannel) {
      lock.release();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot release the index data directory " + root, e);
    }
  }
}
