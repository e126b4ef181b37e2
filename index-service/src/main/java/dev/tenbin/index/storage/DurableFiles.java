package dev.tenbin.index.storage;

import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;

/**
 * Small files replaced atomically and durably: written to a temporary sibling, forced to disk,
 * moved over the target with {@code ATOMIC_MOVE}, then the folder is forced so the rename itself
 * survives a crash. A reader sees the old content or the new, never a torn file.
 */
public final class DurableFiles {
  private DurableFiles() {}

  /** Replaces {@code target} with {@code text} (UTF-8). */
  public static void replace(Path target, String text) throws IOException {
    replace(target, text.getBytes(StandardCharsets.UTF_8));
  }

  /** Replaces {@code target} with {@code content}. */
  public static void replace(Path target, byte[] content) throws IOException {
    Path tmp = target.resolveSibling(target.getFileName() + ".tmp");
    try (FileChannel out =
        FileChannel.open(
            tmp,
            StandardOpenOption.CREATE,
            StandardOpenOption.TRUNCATE_EXISTING,
            StandardOpenOption.WRITE)) {
      ByteBuffer buffer = ByteBuffer.wrap(content);
      while (buffer.hasRemaining()) {
        out.write(buffer);
      }
      out.force(true);
    }
    Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    forceDirectory(target.toAbsolutePath().getParent());
  }

  /** Writes a file's content to a stream. */
  @FunctionalInterface
  public interface Content {
    void writeTo(OutputStream out) throws IOException;
  }

  /**
   * Replaces {@code target} with what {@code content} writes (for files too large for one array).
   */
  public static void replace(Path target, Content content) throws IOException {
    Path tmp = target.resolveSibling(target.getFileName() + ".tmp");
    try (OutputStream out = new BufferedOutputStream(Files.newOutputStream(tmp), 1 << 16)) {
      content.writeTo(out);
    }
    force(tmp);
    Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    forceDirectory(target.toAbsolutePath().getParent());
  }

  /** Forces a file's data (not its metadata) to disk. */
  public static void force(Path file) throws IOException {
    try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
      channel.force(false);
    }
  }

  /**
   * Makes renames and creations in {@code directory} durable where the platform can force a folder.
   */
  public static void forceDirectory(Path directory) {
    try (FileChannel dir = FileChannel.open(directory, StandardOpenOption.READ)) {
      dir.force(true);
    } catch (IOException e) {
      // Some platforms (Windows) cannot open a folder; the rename is then as durable as the OS
      // makes it.
    }
  }
}
