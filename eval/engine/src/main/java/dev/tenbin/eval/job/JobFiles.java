package dev.tenbin.eval.job;

import dev.tenbin.core.InvalidInputException;
import dev.tenbin.core.NotFoundException;
import dev.tenbin.core.PermissionDeniedException;
import dev.tenbin.core.SafeText;
import dev.tenbin.core.Sha256;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.channels.Channels;
import java.nio.channels.SeekableByteChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.security.DigestInputStream;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.stream.Stream;

/**
 * The files of a job's folder as the eval service hands them out: listed with sizes and SHA-256
 * digests, read from an offset (so a broken download resumes). Only regular files inside the folder
 * are listed or read; links are neither followed nor served, and the job's lock files are left out.
 */
public final class JobFiles {
  /** A file of a job's folder: {@code path} relative to it with '/' between names. */
  public record JobFile(String path, long sizeBytes, String sha256) {}

  private JobFiles() {}

  /**
   * Replaces {@code file} with {@code text} (UTF-8), creating its folder: the text goes to a
   * temporary file of a name of its own beside it, which is then moved into place, so a reader sees
   * the old file or the new one whole, and the shards of a job writing the same file at once each
   * move a whole one.
   */
  static void replace(Path file, String text) throws IOException {
    Files.createDirectories(file.getParent());
    Path temporary =
        file.resolveSibling("." + file.getFileName() + "." + java.util.UUID.randomUUID() + ".tmp");
    Files.writeString(temporary, text, StandardCharsets.UTF_8);
    Files.move(
        temporary, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
  }

  /** Every regular file under {@code folder} but lock files, in path order. */
  public static List<JobFile> list(Path folder) {
    if (!Files.isDirectory(folder, LinkOption.NOFOLLOW_LINKS)) {
      return List.of();
    }
    List<JobFile> files = new ArrayList<>();
    try (Stream<Path> walk = Files.walk(folder)) {
      for (Path file : walk.sorted().toList()) {
        if (!Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS) || isLock(file)) {
          continue;
        }
        files.add(new JobFile(relative(folder, file), Files.size(file), sha256(file)));
      }
    } catch (NoSuchFileException e) {
      // A file replaced while listing (a cell being written): the next listing has it.
    } catch (IOException e) {
      throw new UncheckedIOException("cannot list " + folder, e);
    }
    files.sort(java.util.Comparator.comparing(JobFile::path));
    return files;
  }

  /**
   * The bytes of {@code path} (as {@link #list} gives it) from {@code offset} on; the caller closes
   * the stream. INVALID_ARGUMENT for a malformed path or offset, NOT_FOUND for a missing file,
   * PERMISSION_DENIED for anything outside the folder or not a regular file, each naming its field.
   */
  public static InputStream open(Path folder, String path, long offset) {
    Path file = resolve(folder, path);
    if (offset < 0) {
      throw new InvalidInputException("offset", "offset must not be negative, got " + offset);
    }
    try {
      long size = Files.size(file);
      if (offset > size) {
        throw new InvalidInputException(
            "offset", "offset " + offset + " is past the end of " + path + " (" + size + " bytes)");
      }
      SeekableByteChannel channel =
          Files.newByteChannel(file, StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS);
      channel.position(offset);
      return Channels.newInputStream(channel);
    } catch (NoSuchFileException e) {
      throw new NotFoundException(
          "path", "no file " + SafeText.quote(path) + " in the job's folder");
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + path, e);
    }
  }

  /** The file {@code path} names, checked to be a regular file inside {@code folder}. */
  static Path resolve(Path folder, String path) {
    if (path == null || path.isEmpty()) {
      throw new InvalidInputException("path", "path must name a file of the job's folder");
    }
    if (path.startsWith("/") || path.contains("\\") || path.indexOf('\0') >= 0) {
      throw new InvalidInputException(
          "path", "path must be relative with '/' between names, got " + SafeText.quote(path));
    }
    for (String name : path.split("/", -1)) {
      if (name.isEmpty() || name.equals(".") || name.equals("..")) {
        throw new PermissionDeniedException(
            "path", "path must stay inside the job's folder, got " + SafeText.quote(path));
      }
    }
    Path file = folder.resolve(path).normalize();
    try {
      Path realFolder = folder.toRealPath();
      // Every folder on the way must be a real folder inside the job's: no link leads out.
      for (Path at = file.getParent(); at != null && !at.equals(folder); at = at.getParent()) {
        if (Files.isSymbolicLink(at)) {
          throw new PermissionDeniedException(
              "path", "path must not pass through a link, got " + SafeText.quote(path));
        }
      }
      if (!Files.exists(file, LinkOption.NOFOLLOW_LINKS)) {
        throw new NotFoundException(
            "path", "no file " + SafeText.quote(path) + " in the job's folder");
      }
      if (!Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS)
          || !file.toRealPath().startsWith(realFolder)) {
        throw new PermissionDeniedException(
            "path", SafeText.quote(path) + " is not a regular file of the job's folder");
      }
    } catch (IOException e) {
      throw new NotFoundException(
          "path", "no file " + SafeText.quote(path) + " in the job's folder");
    }
    return file;
  }

  private static boolean isLock(Path file) {
    return file.getFileName().toString().startsWith(".lock");
  }

  private static String relative(Path folder, Path file) {
    return folder.relativize(file).toString().replace(java.io.File.separatorChar, '/');
  }

  private static String sha256(Path file) throws IOException {
    MessageDigest digest = Sha256.digest();
    try (InputStream in = new DigestInputStream(Files.newInputStream(file), digest)) {
      in.transferTo(java.io.OutputStream.nullOutputStream());
    }
    return HexFormat.of().formatHex(digest.digest());
  }
}
