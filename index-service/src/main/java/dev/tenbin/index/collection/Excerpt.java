package dev.tenbin.index.collection;

/**
 * A client-supplied value quoted in an error message, cut so that a huge value never travels back
 * whole (a 100,000-character name would overflow the response headers): at most {@value #KEEP}
 * characters, then how long the value really was.
 */
public final class Excerpt {
  static final int KEEP = 64;

  private Excerpt() {}

  /** {@code 'value'}, or {@code 'first 64 characters…' (40000 characters)}. */
  public static String of(String value) {
    if (value == null) {
      return "(none)";
    }
    if (value.length() <= KEEP) {
      return "'" + printable(value) + "'";
    }
    int end = Character.isHighSurrogate(value.charAt(KEEP - 1)) ? KEEP - 1 : KEEP;
    return "'" + printable(value.substring(0, end)) + "…' (" + value.length() + " characters)";
  }

  /** Control characters shown as \\uXXXX so a message stays on one line. */
  private static String printable(String value) {
    StringBuilder out = null;
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      if (Character.isISOControl(c)) {
        if (out == null) {
          out = new StringBuilder(value.substring(0, i));
        }
        out.append(String.format("\\u%04X", (int) c));
      } else if (out != null) {
        out.append(c);
      }
    }
    return out == null ? value : out.toString();
  }
}
