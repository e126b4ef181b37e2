package dev.tenbin.eval.confine;

/**
 * How a value that came from a client is shown in an error message: cut to a readable length and
 * with control characters escaped, so a 100,000-character name or a multi-line value cannot flood a
 * status header or forge log lines.
 */
public final class MessageText {
  /**
   * The longest value shown in a message; longer ones are cut with a count of what was left out.
   */
  public static final int MAX_SHOWN = 120;

  private MessageText() {}

  /** {@code value} in single quotes, cut to {@link #MAX_SHOWN} characters. */
  public static String quote(String value) {
    return "'" + cut(value, MAX_SHOWN) + "'";
  }

  /**
   * {@code value} cut to at most {@code max} characters (plus a note of the rest), control
   * characters escaped.
   */
  public static String cut(String value, int max) {
    if (value == null) {
      return "";
    }
    StringBuilder out = new StringBuilder(Math.min(value.length(), max) + 24);
    int shown = 0;
    for (int i = 0; i < value.length() && shown < max; i++, shown++) {
      char c = value.charAt(i);
      if (c == '\n') {
        out.append("\\n");
      } else if (c == '\r') {
        out.append("\\r");
      } else if (c == '\t') {
        out.append("\\t");
      } else if (Character.isISOControl(c)) {
        out.append(String.format("\\u%04x", (int) c));
      } else {
        out.append(c);
      }
    }
    if (value.length() > shown) {
      out.append("… (").append(value.length() - shown).append(" more characters)");
    }
    return out.toString();
  }
}
