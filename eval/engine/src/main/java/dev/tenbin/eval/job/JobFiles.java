package dev.tenbin.eval.job;

import dev.tenbin.core.InvalidInputException;
import dev.tenbin.core.NotFoundException;
import dev.tenbin.core.PermissionDeniedException;
import dev.tenbin.core.SafeText;
import dev.tenbin.core.StorageFullException;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.channels.Channels;
import java.nio.channels.SeekableByteChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;
import java.nio.file.SecureDirectoryStream;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributeView;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * The files of a job's folder as the eval service hands them out: listed with sizes and SHA-256
 * digests, read from an offset (so a broken download resumes).
 *
 * <p>Confined without following a link anywhere: the walk starts at the results root (the one
 * folder the operator configured) and opens every folder on the way to the job's, and on the way to
 * a file, relative to the one before it and with no-follow opens ({@code openat} with {@code
 * O_NOFOLLOW}, through {@link SecureDirectoryStream}), so a job folder (or any folder in it)
 * replaced by a link to {@code /etc} serves nothing, however the swap is timed. Only regular files
 * are listed or read; the job's lock files and the temporaries of writes in progress or left by a
 * crash ({@code *.tmp}) are neither.
 */
public final class JobFiles {
  /** A file of a job's folder: {@code path} relative to it with '/' between names. */
  public record JobFile(String path, long sizeBytes, String sha256) {}

  /** Writes the bytes of a new file (a test puts a failing disk here). */
  @FunctionalInterface
  interface FileWriter {
    void write(Path file, byte[] bytes) throws IOException;
  }

  private static final LinkOption NOFOLLOW = LinkOption.NOFOLLOW_LINKS;

  private JobFiles() {}

  /**
   * Replaces {@code file} with {@code text} (UTF-8), creating its folder: the text goes to a
   * temporary file of a name of its own beside it ({@code .NAME.<uuid>.tmp}), which is then moved
   * into place, so a reader sees the old file or the new one whole, and the shards of a job writing
   * the same file at once each move a whole one. A write that fails removes its temporary file; a
   * full disk (or quota) is {@link StorageFullException} naming the file and the cause.
   */
  static void replace(Path file, String text) throws IOException {
    replace(file, text, (temporary, bytes) -> Files.write(temporary, bytes));
  }

  static void replace(Path file, String text, FileWriter writer) throws IOException {
    Files.createDirectories(file.getParent());
    Path temporary =
        file.resolveSibling("." + file.getFileName() + "." + java.util.UUID.randomUUID() + ".tmp");
    boolean moved = false;
    try {
      writer.write(temporary, text.getBytes(StandardCharsets.UTF_8));
      Files.move(
          temporary, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
      moved = true;
    } catch (IOException e) {
      var full = StorageFullException.diskFull(e);
      if (full.isPresent()) {
        throw new StorageFullException(
            "cannot write "
                + file.getFileName()
                + " of the job's folder: the disk is full ("
                + full.get().getMessage()
                + "); nothing of it was kept",
            e);
      }
      throw e;
    } finally {
      if (!moved) {
        try {
          Files.deleteIfExists(temporary);
        } catch (IOException ignored) {
          // The write failed already; a temporary that cannot be removed is never listed or served.
        }
      }
    }
  }

  /**
   * Whether a file of that name is a write in progress (or one left by a crash): every temporary of
   * a job's folder ends in {@code .tmp} ({@code .NAME.<uuid>.tmp}, {@code NAME.tmp}).
   */
  public static boolean isTemporary(String name) {
    return name.endsWith(".tmp");
  }

  /**
   * Every regular file under {@code folder} but locks and temporaries, in path order, with digests
   * from {@code digests} (an unchanged file is not read again).
   *
   * @param root the results root (a real path) {@code folder} lies in
   * @param folder the job's folder; nothing when it does not exist
   * @throws PermissionDeniedException naming {@code job_id} when the folder is not a folder inside
   *     {@code root} reached without links
   */
  public static List<JobFile> list(Path root, Path folder, JobFileDigests digests) {
    List<JobFile> files = new ArrayList<>();
    try (SecureDirectoryStream<Path> top = openFolder(root, folder)) {
      if (top == null) {
        return List.of();
      }
      walk(top, "", folder, digests, files);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot list " + folder, e);
    }
    files.sort(java.util.Comparator.comparing(JobFile::path));
    return files;
  }

  private static void walk(
      SecureDirectoryStream<Path> folder,
      String prefix,
      Path shown,
      JobFileDigests digests,
      List<JobFile> files)
      throws IOException {
    List<Path> names = new ArrayList<>();
    for (Path entry : folder) {
      names.add(entry.getFileName());
    }
    for (Path name : names) {
      String relative = prefix + name;
      BasicFileAttributes attributes = attributes(folder, name);
      if (attributes == null) {
        continue; // removed (or replaced) while listing: the next listing has what is there
      }
      if (attributes.isDirectory()) {
        try (SecureDirectoryStream<Path> child = folder.newDirectoryStream(name, NOFOLLOW)) {
          walk(child, relative + "/", shown, digests, files);
        } catch (NoSuchFileException | NotDirectoryException e) {
          // replaced while listing
        } catch (FileSystemException e) {
          // replaced by a link while listing: not followed, not listed
        }
      } else if (attributes.isRegularFile()
          && !isRunnerFile(name.toString())
          && !isTemporary(name.toString())) {
        String sha256;
        try {
          sha256 =
              digests.sha256(
                  shown.resolve(relative),
                  attributes,
                  () -> folder.newByteChannel(name, Set.of(StandardOpenOption.READ, NOFOLLOW)));
        } catch (NoSuchFileException e) {
          continue;
        } catch (FileSystemException e) {
          continue; // replaced by a link meanwhile
        }
        files.add(new JobFile(relative, attributes.size(), sha256));
      }
    }
  }

  /**
   * The bytes of {@code path} (as {@link #list} gives it) from {@code offset} on; the caller closes
   * the stream. INVALID_ARGUMENT for a malformed path or offset, NOT_FOUND for a missing file (or a
   * lock or temporary), PERMISSION_DENIED for anything outside the folder, behind a link or not a
   * regular file, each naming its field.
   *
   * @param root the results root (a real path) {@code folder} lies in
   */
  public static InputStream open(Path root, Path folder, String path, long offset) {
    List<String> names = names(path);
    if (offset < 0) {
      throw new InvalidInputException("offset", "offset must not be negative, got " + offset);
    }
    SecureDirectoryStream<Path> at;
    try {
      at = openFolder(root, folder);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot open the folder of " + path, e);
    }
    if (at == null) {
      throw notFound(path);
    }
    try {
      for (String name : names.subList(0, names.size() - 1)) {
        SecureDirectoryStream<Path> next = descend(at, Path.of(name), "path", path);
        at.close();
        at = next;
        if (at == null) {
          throw notFound(path);
        }
      }
      Path name = Path.of(names.getLast());
      BasicFileAttributes attributes = attributes(at, name);
      if (attributes == null || isRunnerFile(name.toString()) || isTemporary(name.toString())) {
        throw notFound(path);
      }
      if (!attributes.isRegularFile()) {
        throw new PermissionDeniedException(
            "path", SafeText.quote(path) + " is not a regular file of the job's folder");
      }
      SeekableByteChannel channel;
      try {
        channel = at.newByteChannel(name, Set.of(StandardOpenOption.READ, NOFOLLOW));
      } catch (NoSuchFileException e) {
        throw notFound(path);
      } catch (FileSystemException e) {
        throw new PermissionDeniedException(
            "path", SafeText.quote(path) + " is not a regular file of the job's folder");
      }
      try {
        long size = channel.size();
        if (offset > size) {
          throw new InvalidInputException(
              "offset",
              "offset " + offset + " is past the end of " + path + " (" + size + " bytes)");
        }
        channel.position(offset);
        return Channels.newInputStream(channel);
      } catch (IOException | RuntimeException e) {
        channel.close();
        throw e;
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + path, e);
    } finally {
      try {
        if (at != null) {
          at.close();
        }
      } catch (IOException e) {
        // a folder opened for reading only
      }
    }
  }

  /**
   * Checks that the job's folder is a folder inside {@code root} reached without links (or does not
   * exist), for readers that go through its files by path (its stored cells).
   *
   * @throws PermissionDeniedException naming {@code job_id} otherwise
   */
  public static void checkFolder(Path root, Path folder) {
    try (SecureDirectoryStream<Path> ignored = openFolder(root, folder)) {
      // opened without following a link: it is the job's own folder
    } catch (IOException e) {
      throw new UncheckedIOException("cannot open " + folder, e);
    }
  }

  /** The names of a path a client sent, checked: relative, '/' between names, no '.' or '..'. */
  private static List<String> names(String path) {
    if (path == null || path.isEmpty()) {
      throw new InvalidInputException("path", "path must name a file of the job's folder");
    }
    if (path.startsWith("/") || path.contains("\\") || path.indexOf('\0') >= 0) {
      throw new InvalidInputException(
          "path", "path must be relative with '/' between names, got " + SafeText.quote(path));
    }
    List<String> names = List.of(path.split("/", -1));
    for (String name : names) {
      if (name.isEmpty() || name.equals(".") || name.equals("..")) {
        throw new PermissionDeniedException(
            "path", "path must stay inside the job's folder, got " + SafeText.quote(path));
      }
    }
    return names;
  }

  /**
   * The job's folder opened from {@code root} one folder at a time without following links; null
   * when it does not exist.
   */
  private static SecureDirectoryStream<Path> openFolder(Path root, Path folder) throws IOException {
    Path relative = folder.normalize();
    if (!relative.startsWith(root) || relative.equals(root)) {
      throw outsideRoot();
    }
    DirectoryStream<Path> opened = Files.newDirectoryStream(root);
    if (!(opened instanceof SecureDirectoryStream<Path> at)) {
      opened.close();
      throw new UnsupportedOperationException(
          "serving job files needs a file system that opens files relative to a folder"
              + " (openat, as Linux and macOS have)");
    }
    try {
      for (Path name : root.relativize(relative)) {
        SecureDirectoryStream<Path> next = descend(at, name, "job_id", null);
        at.close();
        at = next;
        if (at == null) {
          return null;
        }
      }
      return at;
    } catch (IOException | RuntimeException e) {
      if (at != null) {
        at.close();
      }
      throw e;
    }
  }

  /**
   * The folder {@code name} of {@code at}, opened without following a link; null when missing.
   * PERMISSION_DENIED naming {@code field} when it is a link or not a folder.
   */
  private static SecureDirectoryStream<Path> descend(
      SecureDirectoryStream<Path> at, Path name, String field, String path) throws IOException {
    BasicFileAttributes attributes = attributes(at, name);
    if (attributes == null) {
      return null;
    }
    if (!attributes.isDirectory()) {
      throw notAFolder(field, path);
    }
    try {
      return at.newDirectoryStream(name, NOFOLLOW);
    } catch (NoSuchFileException e) {
      return null;
    } catch (FileSystemException e) {
      // a link (O_NOFOLLOW: ELOOP) or a file swapped in after the check
      throw notAFolder(field, path);
    }
  }

  private static PermissionDeniedException notAFolder(String field, String path) {
    if (path == null) {
      return outsideRoot();
    }
    return new PermissionDeniedException(
        field, "path must not pass through a link, got " + SafeText.quote(path));
  }

  private static PermissionDeniedException outsideRoot() {
    return new PermissionDeniedException(
        "job_id",
        "the job's folder is not a folder of the results root reached without links; nothing of it"
            + " is served");
  }

  private static NotFoundException notFound(String path) {
    return new NotFoundException(
        "path", "no file " + SafeText.quote(path) + " in the job's folder");
  }

  /** The attributes of {@code name} in {@code folder}, links not followed; null when missing. */
  private static BasicFileAttributes attributes(SecureDirectoryStream<Path> folder, Path name)
      throws IOException {
    try {
      return folder
          .getFileAttributeView(name, BasicFileAttributeView.class, NOFOLLOW)
          .readAttributes();
    } catch (NoSuchFileException e) {
      return null;
    }
  }

  /** The runner's own files: its locks, and its key of the job's collections (not results). */
  private static boolean isRunnerFile(String name) {
    return name.startsWith(".lock") || name.equals(JobRunner.COLLECTION_KEY_FILE);
  }
}
