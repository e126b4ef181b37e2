package dev.tenbin.eval.aggregate;

import dev.tenbin.eval.store.CellKey;

/**
 * Which cells a leaderboard covers: each filter is a value to match exactly, or {@code null} for
 * any. The tasks of the displayed scope are the tasks of the cells that pass it.
 */
public record Scope(String benchmark, String language, String domain, String mode) {
  /** Every cell. */
  public static final Scope ALL = new Scope(null, null, null, null);

  public boolean includes(CellKey key) {
    return matches(benchmark, key.task().benchmark())
        && matches(language, key.task().language())
        && matches(domain, key.task().domain())
        && matches(mode, key.mode().wireName());
  }

  private static boolean matches(String filter, String value) {
    return filter == null || filter.equals(value);
  }

  /** A short description, e.g. "benchmark=MTEB language=de", or "all cells". */
  public String describe() {
    StringBuilder text = new StringBuilder();
    append(text, "benchmark", benchmark);
    append(text, "language", language);
    append(text, "domain", domain);
    append(text, "mode", mode);
    return text.isEmpty() ? "all cells" : text.toString();
  }

  private static void append(StringBuilder text, String name, String value) {
    if (value != null) {
      text.append(text.isEmpty() ? "" : " ").append(name).append('=').append(value);
    }
  }
}
