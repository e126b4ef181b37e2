package dev.tenbin.core;

import java.nio.charset.StandardCharsets;

/**
 * Tenbin's one sanitizer of text that came from a client or goes to one.
 *
 * <p>A value shown in a message ({@link #quote}, {@link #escaped}) is cut to a readable length with
 * a count of what was left out, control characters escaped, so a 100,000-character name or a
 * multi-line value cannot flood a message or forge log lines.
 *
 * <p>Text that goes to a client (status messages, field paths) is cut to a size that always fits in
 * HTTP/2 trailers ({@link #message}, {@link #cut}): a value echoed in an error can be as long as
 * the request allowed, and a status larger than the client's header limit (8 KiB by default) turns
 * into {@code INTERNAL http2 exception} instead of the error it was. Every long run of non-blank
 * characters (a value) is cut to {@value #MAX_VALUE_CHARS} characters with an ellipsis and its
 * original length; the whole text is then cut to a byte budget the same way. Cutting is idempotent:
 * cut text is not cut again.
 */
public final class SafeText {
  /** Characters of one value (a run without whitespace) kept before it is cut. */
  public static final int MAX_VALUE_CHARS = 256;

  /** UTF-8 bytes of a status message at most (grpc-java sends it percent-encoded, twice). */
  public static final int MAX_MESSAGE_BYTES = 1000;

  /** UTF-8 bytes of a field path in a {@code BadRequest} at most. */
  public static final int MAX_FIELD_BYTES = 300;

  /** UTF-8 bytes of a field violation's description at most. */
  public static final int MAX_DESCRIPTION_BYTES = 600;

  /** The longest value {@link #quote} shows; longer ones are cut with a count of the rest. */
  public static final int MAX_QUOTED_CHARS = 120;

  private SafeText() {}

  /** {@code value} in single quotes, cut to {@link #MAX_QUOTED_CHARS} characters, escaped. */
  public static String quote(String value) {
    return "'" + escaped(value, MAX_QUOTED_CHARS) + "'";
  }

  /**
   * {@code value} cut to at most {@code maxChars} characters (plus a note of the rest), with line
   * breaks and tabs written as Java escapes and other control characters (and U+2028, U+2029) as
   * Unicode escapes; "" for null.
   */
  public static String escaped(String value, int maxChars) {
    if (value == null) {
      return "";
    }
    StringBuilder out = new StringBuilder(Math.min(value.length(), maxChars) + 24);
    int shown = 0;
    for (int i = 0; i < value.length() && shown < maxChars; i++, shown++) {
      appendEscaped(out, value.charAt(i));
    }
    if (value.length() > shown) {
      out.append("… (").append(value.length() - shown).append(" more characters)");
    }
    return out.toString();
  }

  /**
   * {@code text} on one line, whole: every character that could end a line or forge one (line feed,
   * carriage return, tab, the other C0 and C1 control characters, U+2028 and U+2029) written as an
   * escape, nothing cut; null stays null. How the servers' log writes every message ({@code
   * ProcessLogging}), so a value a client chose ({@code "x\n2026-... ERROR forged"}) is shown as it
   * is and cannot start a log line of its own.
   */
  public static String oneLine(String text) {
    if (text == null) {
      return null;
    }
    int first = 0;
    while (first < text.length() && !breaksLine(text.charAt(first))) {
      first++;
    }
    if (first == text.length()) {
      return text;
    }
    StringBuilder out = new StringBuilder(text.length() + 16).append(text, 0, first);
    for (int i = first; i < text.length(); i++) {
      appendEscaped(out, text.charAt(i));
    }
    return out.toString();
  }

  private static boolean breaksLine(char c) {
    return Character.isISOControl(c) || c == '\u2028' || c == '\u2029';
  }

  private static void appendEscaped(StringBuilder out, char c) {
    if (c == '\n') {
      out.append("\\n");
    } else if (c == '\r') {
      out.append("\\r");
    } else if (c == '\t') {
      out.append("\\t");
    } else if (breaksLine(c)) {
      out.append(String.format(java.util.Locale.ROOT, "\\u%04x", (int) c));
    } else {
      out.append(c);
    }
  }

  /** {@code text} fit for a status message, or null when {@code text} is null. */
  public static String message(String text) {
    return cut(text, MAX_MESSAGE_BYTES);
  }

  /** Long values cut to {@link #MAX_VALUE_CHARS}, then the whole to {@code maxBytes} of UTF-8. */
  public static String cut(String text, int maxBytes) {
    if (text == null) {
      return null;
    }
    String values = cutValues(text);
    if (utf8Length(values) <= maxBytes) {
      return values;
    }
    // A blank before the ellipsis keeps the suffix its own run, so cutting again changes nothing.
    String suffix = " \u2026(" + text.length() + " chars)";
    int budget = Math.max(0, maxBytes - utf8Length(suffix));
    return prefixWithin(values, budget) + suffix;
  }

  /** Whether {@link #cut} would change {@code text}. */
  public static boolean needsCut(String text, int maxBytes) {
    return text != null && !cut(text, maxBytes).equals(text);
  }

  private static String cutValues(String text) {
    StringBuilder out = null;
    int runStart = 0;
    for (int i = 0; i <= text.length(); i++) {
      boolean boundary = i == text.length() || Character.isWhitespace(text.charAt(i));
      if (!boundary) {
        continue;
      }
      int runLength = i - runStart;
      if (runLength > MAX_VALUE_CHARS) {
        if (out == null) {
          out = new StringBuilder(text.length() / 4).append(text, 0, runStart);
        }
        // The cut run ("xxxx…(12345") is MAX_VALUE_CHARS long at most, so cutting again changes
        // nothing.
        String marker = "\u2026(" + runLength;
        String run = text.substring(runStart, i);
        out.append(prefixChars(run, MAX_VALUE_CHARS - marker.length()))
            .append(marker)
            .append(" chars)");
      } else if (out != null) {
        out.append(text, runStart, i);
      }
      if (out != null && i < text.length()) {
        out.append(text.charAt(i));
      }
      runStart = i + 1;
    }
    return out == null ? text : out.toString();
  }

  /** The first {@code chars} characters, not splitting a surrogate pair. */
  private static String prefixChars(String text, int chars) {
    int end = Math.min(chars, text.length());
    if (end > 0 && end < text.length() && Character.isHighSurrogate(text.charAt(end - 1))) {
      end--;
    }
    return text.substring(0, end);
  }

  /** The longest prefix whose UTF-8 encoding fits in {@code maxBytes}. */
  private static String prefixWithin(String text, int maxBytes) {
    int bytes = 0;
    int i = 0;
    while (i < text.length()) {
      int codePoint = text.codePointAt(i);
      int size = utf8Length(codePoint);
      if (bytes + size > maxBytes) {
        break;
      }
      bytes += size;
      i += Character.charCount(codePoint);
    }
    return text.substring(0, i);
  }

  static int utf8Length(String text) {
    return text.getBytes(StandardCharsets.UTF_8).length;
  }

  private static int utf8Length(int codePoint) {
    if (codePoint < 0x80) {
      return 1;
    }
    if (codePoint < 0x800) {
      return 2;
    }
    return codePoint < 0x10000 ? 3 : 4;
  }
}
