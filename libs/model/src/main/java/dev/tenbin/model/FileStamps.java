package dev.tenbin.model;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.TreeSet;
import java.util.stream.Stream;

/**
 * Stamps of files: for each, its absolute path, size and modification time (with the file system's
 * full precision), one line each in path order. Two stamps are equal while none of the files was
 * replaced, grown, cut or touched; reading the files is not needed to take one.
 *
 * <p>A file modified less than {@link #SETTLING} before the stamp is taken gets none (empty): file
 * systems keep modification times in ticks (milliseconds, or seconds on some), so a file rewritten
 * with the same size within one tick of a stamp would keep it. As git does for its index, such a
 * "racy" file is not trusted by its stamp; its model is loaded, and remembered once it has settled.
 *
 * <p>The encoder's and the rerank service's {@link ModelInfoCache}s key their entries by it.
 */
public final class FileStamps {
  /** How deep a model folder is walked (its graph may sit in a subfolder such as onnx/). */
  private static final int FOLDER_DEPTH = 3;

  /** How long ago a file must have been modified to be stamped. */
  public static final Duration SETTLING = Duration.ofSeconds(3);

  private FileStamps() {}

  /** The stamp of these files (a missing one fails); empty when one of them has not settled. */
  public static Optional<String> of(Collection<Path> files) throws IOException {
    Instant settled = Instant.now().minus(SETTLING);
    StringBuilder stamp = new StringBuilder();
    for (Path file : new TreeSet<>(files.stream().map(Path::toAbsolutePath).toList())) {
      BasicFileAttributes attributes = Files.readAttributes(file, BasicFileAttributes.class);
      if (!attributes.lastModifiedTime().toInstant().isBefore(settled)) {
        return Optional.empty();
      }
      stamp
          .append(file)
          .append('\t')
          .append(attributes.size())
          .append('\t')
          .append(attributes.lastModifiedTime().toInstant())
          .append('\n');
    }
    return Optional.of(stamp.toString());
  }

  /** The stamp of every regular file in {@code folder} and its subfolders (three levels). */
  public static Optional<String> ofFolder(Path folder) throws IOException {
    List<Path> files = new ArrayList<>();
    try (Stream<Path> walk = Files.walk(folder, FOLDER_DEPTH)) {
      walk.filter(path -> Files.isRegularFile(path, LinkOption.NOFOLLOW_LINKS)).forEach(files::add);
    }
    return of(files);
  }
}
