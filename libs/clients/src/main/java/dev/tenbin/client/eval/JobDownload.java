package dev.tenbin.client.eval;

import dev.tenbin.proto.eval.v1.JobFile;
import dev.tenbin.proto.eval.v1.ReadJobFileRequest;
import dev.tenbin.proto.eval.v1.ReadJobFileResponse;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.SeekableByteChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SecureDirectoryStream;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributeView;
import java.nio.file.attribute.BasicFileAttributes;
import java.security.DigestInputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Iterator;
import java.util.List;
import java.util.Set;

/**
 * Copies a job's folder from an eval service into a local folder, resumably: a file whose local
 * copy has the listed size and SHA-256 is skipped, a file is written to {@code NAME.partial} and
 * renamed into place only once its size and digest match, and a partial copy left by a broken
 * download (or a stream that broke off, retried a few times) continues from its last byte.
 *
 * <p>Everything is written inside the folder, whatever the service lists and whatever else is in
 * the folder: it is opened once, and every folder and file under it is reached from it one name at
 * a time, never following a link (through {@link SecureDirectoryStream}: {@code openat} with {@code
 * O_NOFOLLOW}); a new partial file is created only if none is there ({@code O_CREAT|O_EXCL}), and
 * renamed within its folder. A link (or anything but a folder or a regular file) where the download
 * would write ends it with {@link UnsafeFolderException} naming the path, before a byte is written
 * there.
 */
public final class JobDownload {
  /** Retries of one file after its stream broke off (UNAVAILABLE), each resuming. */
  static final int ATTEMPTS = 5;

  private static final LinkOption NOFOLLOW = LinkOption.NOFOLLOW_LINKS;

  /** What a download did. */
  public record Summary(int downloaded, int unchanged, long bytes) {}

  /** A link, or something else that is not a folder or a regular file, where a download writes. */
  public static final class UnsafeFolderException extends IllegalStateException {
    UnsafeFolderException(String message) {
      super(message);
    }
  }

  private final EvalClient client;

  public JobDownload(EvalClient client) {
    this.client = client;
  }

  /** Copies every file of {@code jobId}'s folder into {@code into} (created when missing). */
  public Summary into(String jobId, Path into) {
    List<JobFile> files = client.listJobFiles(jobId);
    int downloaded = 0;
    int unchanged = 0;
    long bytes = 0;
    try {
      Files.createDirectories(into);
      for (JobFile file : files) {
        List<String> names = names(file.getPath());
        try (SecureDirectoryStream<Path> folder = folder(into, names)) {
          Path name = Path.of(names.getLast());
          Path shown = into.resolve(file.getPath());
          BasicFileAttributes existing = attributes(folder, name, shown);
          if (existing != null
              && existing.size() == file.getSizeBytes()
              && sha256(folder, name).equals(file.getSha256())) {
            unchanged++;
            continue;
          }
          bytes += fetch(jobId, file, folder, name, shown);
          downloaded++;
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write into " + into + ": " + e.getMessage(), e);
    }
    return new Summary(downloaded, unchanged, bytes);
  }

  /**
   * The names of a listed file's path; a path that would leave the folder (absolute, "..", ".",
   * empty names, backslashes) is refused, whatever the service sent.
   */
  static List<String> names(String path) {
    List<String> names = path.isEmpty() ? List.of() : List.of(path.split("/", -1));
    if (names.isEmpty()
        || path.startsWith("/")
        || path.indexOf('\\') >= 0
        || path.indexOf('\0') >= 0
        || names.stream().anyMatch(n -> n.isEmpty() || n.equals(".") || n.equals(".."))) {
      throw new IllegalStateException(
          "the service listed a file outside the job's folder: '" + path + "'");
    }
    return names;
  }

  /**
   * The folder that holds the file {@code names} names, opened from {@code into} one folder at a
   * time without following a link, each created when missing.
   */
  private static SecureDirectoryStream<Path> folder(Path into, List<String> names)
      throws IOException {
    DirectoryStream<Path> opened = Files.newDirectoryStream(into);
    if (!(opened instanceof SecureDirectoryStream<Path> at)) {
      opened.close();
      throw new UnsupportedOperationException(
          "downloading a job needs a file system that opens files relative to a folder"
              + " (openat, as Linux and macOS have)");
    }
    Path shown = into;
    try {
      for (String name : names.subList(0, names.size() - 1)) {
        Path child = Path.of(name);
        shown = shown.resolve(name);
        if (attributes(at, child, shown) == null) {
          try {
            // Created by path (a SecureDirectoryStream cannot make folders), then opened from its
            // parent without following a link: a link swapped in meanwhile fails the open.
            Files.createDirectory(shown);
          } catch (FileAlreadyExistsException e) {
            // made meanwhile: checked when opened
          }
        }
        SecureDirectoryStream<Path> next;
        try {
          BasicFileAttributes attributes = attributes(at, child, shown);
          if (attributes == null || !attributes.isDirectory()) {
            throw unsafe(shown, "is not a folder");
          }
          next = at.newDirectoryStream(child, NOFOLLOW);
        } catch (FileSystemException e) {
          throw unsafe(shown, "cannot be opened without following a link");
        }
        at.close();
        at = next;
      }
      return at;
    } catch (IOException | RuntimeException e) {
      at.close();
      throw e;
    }
  }

  /**
   * The attributes of {@code name} in {@code folder}, not following a link; null when missing. A
   * link, or anything but a folder or a regular file, is refused.
   */
  private static BasicFileAttributes attributes(
      SecureDirectoryStream<Path> folder, Path name, Path shown) throws IOException {
    BasicFileAttributes attributes;
    try {
      attributes =
          folder
              .getFileAttributeView(name, BasicFileAttributeView.class, NOFOLLOW)
              .readAttributes();
    } catch (NoSuchFileException e) {
      return null;
    }
    if (attributes.isSymbolicLink()) {
      throw unsafe(shown, "is a symbolic link");
    }
    if (!attributes.isDirectory() && !attributes.isRegularFile()) {
      throw unsafe(shown, "is neither a folder nor a regular file");
    }
    return attributes;
  }

  private static UnsafeFolderException unsafe(Path shown, String what) {
    return new UnsafeFolderException(
        shown
            + " "
            + what
            + ": a download writes only inside its folder and follows no link; remove it, or"
            + " download into another folder");
  }

  /** Fetches one file into place; the bytes transferred. */
  private long fetch(
      String jobId, JobFile file, SecureDirectoryStream<Path> folder, Path name, Path shown)
      throws IOException {
    Path partial = Path.of(name + ".partial");
    Path shownPartial = shown.resolveSibling(partial.toString());
    BasicFileAttributes left = attributes(folder, partial, shownPartial);
    if (left != null && (!left.isRegularFile() || left.size() > file.getSizeBytes())) {
      if (!left.isRegularFile()) {
        throw unsafe(shownPartial, "is not a regular file");
      }
      folder.deleteFile(partial);
    }
    long transferred = 0;
    for (int attempt = 1; ; attempt++) {
      BasicFileAttributes existing = attributes(folder, partial, shownPartial);
      long offset = existing == null ? 0 : existing.size();
      try (SeekableByteChannel channel = openPartial(folder, partial, shownPartial, existing)) {
        if (offset < file.getSizeBytes()) {
          Iterator<ReadJobFileResponse> chunks =
              client.readJobFile(
                  ReadJobFileRequest.newBuilder()
                      .setJobId(jobId)
                      .setPath(file.getPath())
                      .setOffset(offset)
                      .build());
          while (chunks.hasNext()) {
            ByteBuffer data = chunks.next().getData().asReadOnlyByteBuffer();
            while (data.hasRemaining()) {
              transferred += channel.write(data);
            }
          }
        }
      } catch (StatusRuntimeException e) {
        if (e.getStatus().getCode() == Status.Code.UNAVAILABLE && attempt < ATTEMPTS) {
          continue; // resume from what arrived
        }
        throw e;
      }
      BasicFileAttributes written = attributes(folder, partial, shownPartial);
      if (written != null
          && written.size() == file.getSizeBytes()
          && sha256(folder, partial).equals(file.getSha256())) {
        // renameat within the folder: replaces what is at the name, never writes through it
        folder.move(partial, folder, name);
        return transferred;
      }
      // The file changed on the service since it was listed (a running job rewrote it), or a
      // partial copy came from another version: start this file over once, then give up.
      folder.deleteFile(partial);
      if (attempt >= 2) {
        throw new IllegalStateException(
            file.getPath()
                + " changed on the service while it was copied (is the job still running?);"
                + " download again when the job has ended");
      }
    }
  }

  /**
   * The partial file for appending, not following a link: created only if no file is there ({@code
   * CREATE_NEW}), else the regular file {@code existing} is (checked before).
   */
  private static SeekableByteChannel openPartial(
      SecureDirectoryStream<Path> folder, Path partial, Path shown, BasicFileAttributes existing)
      throws IOException {
    try {
      return existing == null
          ? folder.newByteChannel(
              partial, Set.of(StandardOpenOption.WRITE, StandardOpenOption.CREATE_NEW, NOFOLLOW))
          : folder.newByteChannel(
              partial, Set.of(StandardOpenOption.WRITE, StandardOpenOption.APPEND, NOFOLLOW));
    } catch (FileAlreadyExistsException e) {
      throw unsafe(shown, "appeared while the download ran");
    } catch (NoSuchFileException e) {
      throw unsafe(shown, "went away while the download ran");
    } catch (FileSystemException e) {
      throw unsafe(shown, "cannot be opened without following a link");
    }
  }

  private static String sha256(SecureDirectoryStream<Path> folder, Path name) throws IOException {
    try (SeekableByteChannel channel =
        folder.newByteChannel(name, Set.of(StandardOpenOption.READ, NOFOLLOW))) {
      return sha256(Channels.newInputStream(channel));
    } catch (FileSystemException e) {
      if (e instanceof NoSuchFileException) {
        throw e;
      }
      throw new UnsafeFolderException(
          name + " cannot be read without following a link: a download follows no link");
    }
  }

  static String sha256(Path file) throws IOException {
    try (InputStream in = Files.newInputStream(file, NOFOLLOW)) {
      return sha256(in);
    }
  }

  private static String sha256(InputStream stream) throws IOException {
    MessageDigest digest;
    try {
      digest = MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("this JDK has no SHA-256", e);
    }
    try (InputStream in = new DigestInputStream(stream, digest)) {
      in.transferTo(OutputStream.nullOutputStream());
    }
    return HexFormat.of().formatHex(digest.digest());
  }
}
