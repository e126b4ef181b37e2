package dev.tenbin.scoring.trec;

/**
 * What a query or document id may hold: TREC run and qrels files are whitespace separated, so an id
 * is one non-empty token without whitespace, separators or control characters. Readers refuse other
 * ids (with the file and line) rather than split them differently than the writer joined them.
 */
public final class RecordIds {
  private RecordIds() {}

  /** Why {@code id} cannot be an id, or null when it can. */
  public static String problem(String id) {
    if (id.isEmpty()) {
      return "is empty";
    }
    if (isPrintableAscii(id)) {
      return null;
    }
    for (int i = 0; i < id.length(); ) {
      int c = id.codePointAt(i);
      if (Character.isWhitespace(c) || Character.isSpaceChar(c)) {
        return "holds whitespace (U+" + String.format("%04X", c) + ")";
      }
      if (Character.isISOControl(c)) {
        return "holds a control character (U+" + String.format("%04X", c) + ")";
      }
      i += Character.charCount(c);
    }
    return null;
  }

  /** Only U+0021 to U+007E: none of them is whitespace or a control character. */
  private static boolean isPrintableAscii(String id) {
    for (int i = 0; i < id.length(); i++) {
      char c = id.charAt(i);
      if (c <= ' ' || c >= 0x7F) {
        return false;
      }
    }
    return true;
  }
}
