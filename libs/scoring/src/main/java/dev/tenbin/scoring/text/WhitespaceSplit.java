package dev.tenbin.scoring.text;

/**
 * Text split as {@code text.strip().split("\\s+")} splits it, without building the parts: stripped
 * of leading and trailing whitespace ({@link Character#isWhitespace}), the rest split at runs of
 * ASCII whitespace. The columns of TREC run and qrels lines, and the words of queries and
 * documents.
 */
public final class WhitespaceSplit {
  private static final int[] NO_BOUNDS = new int[0];

  private WhitespaceSplit() {}

  /**
   * Splits a line as {@code line.strip().split("\\s+")} would, without building the parts: the line
   * is stripped of leading and trailing whitespace ({@link Character#isWhitespace}) and the rest
   * split at runs of ASCII whitespace (space, tab, newline, vertical tab, form feed, carriage
   * return). The [start, end) bounds of the first {@code bounds.length / 2} columns are stored.
   *
   * @return the number of columns, 0 for a blank line
   */
  public static int columns(String line, int[] bounds) {
    int from = 0;
    int to = line.length();
    while (from < to && isStripped(line.codePointAt(from))) {
      from += Character.charCount(line.codePointAt(from));
    }
    while (to > from && isStripped(line.codePointBefore(to))) {
      to -= Character.charCount(line.codePointBefore(to));
    }
    int columns = 0;
    int i = from;
    while (i < to) {
      int start = i;
      while (i < to && !isSeparator(line.charAt(i))) {
        i++;
      }
      if (2 * columns < bounds.length) {
        bounds[2 * columns] = start;
        bounds[2 * columns + 1] = i;
      }
      columns++;
      while (i < to && isSeparator(line.charAt(i))) {
        i++;
      }
    }
    return columns;
  }

  /** The number of parts, 0 for a blank text. */
  public static int count(String text) {
    return columns(text, NO_BOUNDS);
  }

  /** Whether strip() removes this code point at either end. */
  public static boolean isStripped(int codePoint) {
    return Character.isWhitespace(codePoint);
  }

  /** The characters of the regex {@code \\s}. */
  public static boolean isSeparator(char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == 0x0B || c == '\f' || c == '\r';
  }
}
