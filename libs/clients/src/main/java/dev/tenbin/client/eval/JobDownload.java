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
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.security.DigestInputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Iterator;
import java.util.List;

/**
 * Copies a job's folder from an eval service into a local folder, resumably: a file whose local
 * copy has the listed size and SHA-256 is skipped, a file is written to {@code NAME.partial} and
 * renamed into place only once its size and digest match, and a partial copy left by a broken
 * download (or a stream that broke off, retried a few times) continues from its last byte.
 */
public final class JobDownload {
  /** Retries of one file after its stream broke off (UNAVAILABLE), each resuming. */
  static final int ATTEMPTS = 5;

  /** What a download did. */
  public record Summary(int downloaded, int unchanged, long bytes) {}

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
        Path target = target(into, file.getPath());
        if (Files.isRegularFile(target)
            && Files.size(target) == file.getSizeBytes()
            && sha256(target).equals(file.getSha256())) {
          unchanged++;
          continue;
        }
        bytes += fetch(jobId, file, target);
        downloaded++;
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write into " + into + ": " + e.getMessage(), e);
    }
    return new Summary(downloaded, unchanged, bytes);
  }

  /**
   * The local path of a listed file; a path that would leave {@code into} (absolute, "..") is
   * refused, whatever the service sent.
   */
  static Path target(Path into, String path) {
    Path root = into.toAbsolutePath().normalize();
    Path target = root.resolve(path).normalize();
    if (path.isEmpty()
        || Path.of(path).isAbsolute()
        || !target.startsWith(root)
        || target.equals(root)) {
      throw new IllegalStateException(
          "the service listed a file outside the job's folder: '" + path + "'");
    }
    return target;
  }

  /** Fetches one file into place; the bytes transferred. */
  private long fetch(String jobId, JobFile file, Path target) throws IOException {
    Files.createDirectories(target.getParent());
    Path partial = target.resolveSibling(target.getFileName() + ".partial");
    if (Files.exists(partial) && Files.size(partial) > file.getSizeBytes()) {
      Files.delete(partial);
    }
    long transferred = 0;
    for (int attempt = 1; ; attempt++) {
      long offset = Files.exists(partial) ? Files.size(partial) : 0;
      try (OutputStream out =
          Files.newOutputStream(
              partial,
              StandardOpenOption.CREATE,
              StandardOpenOption.WRITE,
              StandardOpenOption.APPEND)) {
        if (offset < file.getSizeBytes()) {
          Iterator<ReadJobFileResponse> chunks =
              client.readJobFile(
                  ReadJobFileRequest.newBuilder()
                      .setJobId(jobId)
                      .setPath(file.getPath())
                      .setOffset(offset)
                      .build());
          while (chunks.hasNext()) {
            byte[] data = chunks.next().getData().toByteArray();
            out.write(data);
            transferred += data.length;
          }
        }
      } catch (StatusRuntimeException e) {
        if (e.getStatus().getCode() == Status.Code.UNAVAILABLE && attempt < ATTEMPTS) {
          continue; // resume from what arrived
        }
        throw e;
      }
      if (Files.size(partial) == file.getSizeBytes() && sha256(partial).equals(file.getSha256())) {
        Files.move(
            partial, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        return transferred;
      }
      // The file changed on the service since it was listed (a running job rewrote it), or a
      // partial copy came from another version: start this file over once, then give up.
      Files.deleteIfExists(partial);
      if (attempt >= 2) {
        throw new IllegalStateException(
            file.getPath()
                + " changed on the service while it was copied (is the job still running?);"
                + " download again when the job has ended");
      }
    }
  }

  static String sha256(Path file) throws IOException {
    MessageDigest digest;
    try {
      digest = MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("this JDK has no SHA-256", e);
    }
    try (InputStream in = new DigestInputStream(Files.newInputStream(file), digest)) {
      in.transferTo(OutputStream.nullOutputStream());
    }
    return HexFormat.of().formatHex(digest.digest());
  }
}
