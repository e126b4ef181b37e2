package dev.tenbin.scoring.beir;

/** A corpus document of a BEIR collection; a missing title is empty. */
public record CorpusDocument(String id, String title, String text) {
  /** Title and text as dense encoders see them: title + " " + text, or text alone. */
  public String titleAndText() {
    return title.isEmpty() ? text : title + " " + text;
  }
}
