package dev.tenbin.eval.confine;

import dev.tenbin.core.InvalidInputException;
import dev.tenbin.core.PermissionDeniedException;
import dev.tenbin.core.SafeText;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Folders a service may use on behalf of its clients (the eval service's data roots, its results
 * root), and the one check that a path a client asked for lies inside one of them.
 *
 * <p>A path is resolved (relative ones against a base folder), normalised, and then the real path
 * of its longest existing prefix is taken, so {@code ..} and symbolic links that lead out are both
 * caught; it is accepted when that real path lies inside a root, and the path returned is that real
 * path (plus the part that does not exist yet): the one to read or write. A path outside is a
 * {@link PermissionDeniedException} naming the request field; the message quotes the value as sent
 * (cut), never anything read from the file system.
 */
public final class ConfinedRoots {
  private static final int MAX_PATH_CHARS = 4096;

  private final String what;
  private final List<Path> configured;
  private final List<Path> real;

  private ConfinedRoots(String what, List<Path> configured, List<Path> real) {
    this.what = what;
    this.configured = List.copyOf(configured);
    this.real = List.copyOf(real);
  }

  /**
   * Roots from configuration; each must be an existing folder.
   *
   * @param option the option that named them, for messages ({@code --data-root})
   * @param what how messages call them ({@code data roots})
   * @throws InvalidInputException naming {@code option} when a folder does not exist
   */
  public static ConfinedRoots of(String option, String what, List<Path> folders) {
    List<Path> configured = new ArrayList<>();
    List<Path> real = new ArrayList<>();
    for (Path folder : folders) {
      Path absolute = folder.toAbsolutePath().normalize();
      if (!Files.isDirectory(absolute)) {
        throw new InvalidInputException(
            option, option + " " + folder + " is not an existing folder");
      }
      try {
        real.add(absolute.toRealPath());
      } catch (IOException e) {
        throw new InvalidInputException(
            option, option + " " + folder + " cannot be resolved: " + e.getMessage());
      }
      configured.add(absolute);
    }
    return new ConfinedRoots(what, configured, real);
  }

  /** Whether no root is configured (then every path is refused). */
  public boolean isEmpty() {
    return real.isEmpty();
  }

  /** The roots, as real paths. */
  public List<Path> roots() {
    return real;
  }

  /**
   * The real path {@code raw} names, which must lie inside a root (or be one).
   *
   * @param field the request field, for errors ({@code output_dir}, {@code
   *     task_sets[0].tasks[2].source.path})
   * @param raw the path as the client wrote it
   * @param base the folder a relative {@code raw} is resolved against (absolute)
   */
  public Path resolve(String field, String raw, Path base) {
    if (raw == null || raw.isBlank()) {
      throw new InvalidInputException(field, field + ": empty path");
    }
    if (raw.length() > MAX_PATH_CHARS || raw.indexOf('\0') >= 0) {
      throw new InvalidInputException(
          field, field + ": " + SafeText.quote(raw) + " is not a valid path");
    }
    Path path;
    try {
      path = Path.of(raw);
    } catch (InvalidPathException e) {
      throw new InvalidInputException(
          field, field + ": " + SafeText.quote(raw) + " is not a valid path");
    }
    Path normal = (path.isAbsolute() ? path : base.resolve(path)).toAbsolutePath().normalize();
    return inside(field, normal, SafeText.quote(raw));
  }

  /**
   * {@code path} (already absolute, e.g. found by listing a folder) as a real path inside a root.
   *
   * @param shown how messages name it
   */
  public Path check(String field, Path path, String shown) {
    return inside(field, path.toAbsolutePath().normalize(), shown);
  }

  private Path inside(String field, Path normal, String shown) {
    if (real.isEmpty()) {
      throw new PermissionDeniedException(
          field, field + ": " + shown + ": this service has no " + what + " configured");
    }
    boolean lexicallyInside = within(normal, real) || within(normal, configured);
    Path resolved;
    try {
      resolved = realPathOfExistingPrefix(normal);
    } catch (IOException e) {
      // A link that points nowhere (or a folder we may not enter): refuse rather than guess.
      throw new PermissionDeniedException(
          field,
          field
              + ": "
              + shown
              + (lexicallyInside
                  ? " cannot be resolved inside the "
                      + what
                      + " (a broken symbolic link or an unreadable folder)"
                  : " lies outside the " + what + " " + real));
    }
    if (within(resolved, real)) {
      return resolved;
    }
    throw new PermissionDeniedException(
        field,
        field
            + ": "
            + shown
            + (lexicallyInside
                ? " leads outside the " + what + " " + real + " through a symbolic link"
                : " lies outside the " + what + " " + real));
  }

  private static boolean within(Path path, List<Path> roots) {
    for (Path root : roots) {
      if (path.startsWith(root)) {
        return true;
      }
    }
    return false;
  }

  /**
   * {@code path} made absolute and normalised, then the real path of its longest existing prefix
   * with the rest appended: the folder it names as the file system has it now (links followed), for
   * comparing two paths that may be spelt differently. A prefix that cannot be resolved (a broken
   * link) leaves the path as it is.
   */
  public static Path realPath(Path path) {
    Path normal = path.toAbsolutePath().normalize();
    try {
      return realPathOfExistingPrefix(normal);
    } catch (IOException e) {
      return normal;
    }
  }

  /**
   * The real path of the longest existing prefix of {@code normal}, with the rest (which cannot
   * hold links) appended.
   */
  private static Path realPathOfExistingPrefix(Path normal) throws IOException {
    Path existing = normal;
    while (existing != null && !Files.exists(existing, LinkOption.NOFOLLOW_LINKS)) {
      existing = existing.getParent();
    }
    if (existing == null) {
      return normal;
    }
    return existing.toRealPath().resolve(existing.relativize(normal));
  }
}
