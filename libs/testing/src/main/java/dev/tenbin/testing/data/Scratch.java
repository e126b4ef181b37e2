package dev.tenbin.testing.data;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/**
 * A scratch folder for fuzz targets: one per JVM (a fuzz target runs thousands of times a second,
 * so it rewrites the same few files rather than creating a folder per input), emptied before each
 * input and deleted when the JVM exits.
 */
public final class Scratch {
  private static final Path ROOT = create();

  private Scratch() {}

  /** An empty folder {@code name} under the JVM's scratch folder. */
  public static Path fresh(String name) {
    Path dir = ROOT.resolve(name);
    delete(dir);
    try {
      return Files.createDirectories(dir);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static Path create() {
    try {
      Path root = Files.createTempDirectory("tenbin-fuzz");
      Runtime.getRuntime().addShutdownHook(new Thread(() -> delete(root)));
      return root;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  public static void delete(Path dir) {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(dir)) {
      for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(path);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
