package dev.tenbin.index.lexical;

/** The text of one document as BM25 sees it: title and text indexed together in one field. */
public record LexicalDocument(String id, String title, String text) {
  /** "Flat" contents, as Anserini's BeirFlatCollection: title + " " + text. */
  public String contents() {
    String t = title == null ? "" : title;
    String x = text == null ? "" : text;
    return t.isEmpty() ? x : t + " " + x;
  }
}
