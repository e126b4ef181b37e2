package dev.tenbin.eval.taskset;

import java.nio.file.Path;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A path as written in a spec: a leading {@code ~} is the home folder, {@code ${NAME}} is an
 * environment variable, and a relative result is resolved against the spec file's folder.
 */
final class PathTemplate implements DatasetPaths {
  private static final Pattern VARIABLE = Pattern.compile("\\$\\{([A-Za-z_][A-Za-z0-9_]*)}");

  private final Map<String, String> environment;
  private final Path home;

  PathTemplate(Map<String, String> environment, Path home) {
    this.environment = environment;
    this.home = home;
  }

  @Override
  public Path resolve(String raw, Path base, String field) {
    return resolve(raw, base);
  }

  /**
   * The absolute, normalised path {@code raw} names.
   *
   * @throws IllegalArgumentException naming an undefined variable
   */
  Path resolve(String raw, Path baseDirectory) {
    Matcher matcher = VARIABLE.matcher(raw);
    StringBuilder expanded = new StringBuilder();
    while (matcher.find()) {
      String value = environment.get(matcher.group(1));
      if (value == null) {
        throw new IllegalArgumentException(
            "environment variable " + matcher.group(1) + " is not set");
      }
      matcher.appendReplacement(expanded, Matcher.quoteReplacement(value));
    }
    matcher.appendTail(expanded);
    String text = expanded.toString();
    Path path;
    if (text.equals("~")) {
      path = home;
    } else if (text.startsWith("~/")) {
      path = home.resolve(text.substring(2));
    } else {
      path = Path.of(text);
    }
    return baseDirectory.resolve(path).toAbsolutePath().normalize();
  }
}
