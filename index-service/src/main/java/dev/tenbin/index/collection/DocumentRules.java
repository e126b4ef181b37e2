package dev.tenbin.index.collection;

import dev.tenbin.core.InvalidInputException;

/**
 * What a document's id, title and text may be, checked before anything is written. Ids become
 * Lucene terms (limit 32,766 bytes), lines of TREC run files and TSV cells, so they are short and
 * free of control characters; titles and texts are bounded so one document cannot take the
 * service's memory.
 */
public final class DocumentRules {
  /** Largest id, in UTF-8 bytes. */
  public static final int MAX_ID_BYTES = 512;

  /** Largest title, in UTF-8 bytes. */
  public static final int MAX_TITLE_BYTES = 64 * 1024;

  /** Largest text, in UTF-8 bytes. */
  public static final int MAX_TEXT_BYTES = 4 * 1024 * 1024;

  private DocumentRules() {}

  /** Checks id, title and text of the document at {@code field} (e.g. {@code documents[3]}). */
  static void check(IngestDocument doc, String field) {
    String id = doc.id();
    if (id == null || id.isBlank()) {
      throw new InvalidInputException(field + ".id", "document id must not be empty");
    }
    long idBytes = utf8Length(id, MAX_ID_BYTES);
    if (idBytes > MAX_ID_BYTES) {
      throw new InvalidInputException(
          field + ".id",
          "document id " + Excerpt.of(id) + " is longer than " + MAX_ID_BYTES + " UTF-8 bytes");
    }
    for (int i = 0; i < id.length(); i++) {
      if (Character.isISOControl(id.charAt(i))) {
        throw new InvalidInputException(
            field + ".id",
            "document id "
                + Excerpt.of(id)
                + " holds the control character "
                + String.format("U+%04X", (int) id.charAt(i))
                + " at position "
                + i);
      }
    }
    if (utf8Length(doc.title(), MAX_TITLE_BYTES) > MAX_TITLE_BYTES) {
      throw new InvalidInputException(
          field + ".title",
          "title is longer than "
              + MAX_TITLE_BYTES
              + " UTF-8 bytes ("
              + doc.title().length()
              + " characters)");
    }
    if (utf8Length(doc.text(), MAX_TEXT_BYTES) > MAX_TEXT_BYTES) {
      throw new InvalidInputException(
          field + ".text",
          "text is longer than "
              + MAX_TEXT_BYTES
              + " UTF-8 bytes ("
              + doc.text().length()
              + " characters)");
    }
  }

  /**
   * The UTF-8 length of {@code value} as far as {@code limit} matters: a number above {@code limit}
   * exactly when the encoded value is longer than {@code limit} bytes (counting stops there).
   */
  static long utf8Length(String value, int limit) {
    if (value == null) {
      return 0;
    }
    if ((long) value.length() * 3 <= limit) {
      return value.length();
    }
    long bytes = 0;
    for (int i = 0; i < value.length() && bytes <= limit; i++) {
      char c = value.charAt(i);
      if (c < 0x80) {
        bytes += 1;
      } else if (c < 0x800) {
        bytes += 2;
      } else if (Character.isHighSurrogate(c)
          && i + 1 < value.length()
          && Character.isLowSurrogate(value.charAt(i + 1))) {
        bytes += 4;
        i++;
      } else {
        bytes += 3;
      }
    }
    return bytes;
  }
}
