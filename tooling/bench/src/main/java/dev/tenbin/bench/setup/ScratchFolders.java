package dev.tenbin.bench.setup;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/** The temporary folders benches index into, created fresh and deleted afterwards. */
public final class ScratchFolders {
  private ScratchFolders() {}

  /** A new empty folder under the system's temporary folder, named {@code prefix…}. */
  public static Path create(String prefix) {
    try {
      return Files.createTempDirectory(prefix);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create a scratch folder", e);
    }
  }

  /** Deletes {@code folder} and everything in it, as far as it can (a scratch folder). */
  public static void delete(Path folder) {
    try (Stream<Path> paths = Files.walk(folder)) {
      for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(path);
      }
    } catch (IOException ignored) {
      // A scratch folder: what cannot be deleted stays under the temporary folder.
    }
  }
}
