package dev.tenbin.scoring.beir;

/**
 * Where a query's reference evidence lies in its positive document: character offsets into the
 * document's {@code text}, end exclusive. Characters are Unicode code points (as Python counts
 * them, and as {@code qrels/spans.tsv} files are written), not UTF-16 units.
 *
 * @param documentId the positive document
 * @param start first character of the span
 * @param end one past its last character
 * @param documentLength the document text's length in characters
 */
public record AnswerSpan(String documentId, int start, int end, int documentLength) {
  /** Number of equal-width relative-position bins of the PosIR analysis. */
  public static final int POSITION_BINS = 20;

  public AnswerSpan {
    if (start < 0 || end < start || end > documentLength) {
      throw new IllegalArgumentException(
          "span ["
              + start
              + ", "
              + end
              + ") is outside a text of "
              + documentLength
              + " characters");
    }
  }

  /**
   * The span's centre over the document's length, in [0, 1]: {@code ((start + end) / 2) / length}
   * (0 for an empty document).
   */
  public double relativePosition() {
    return documentLength == 0 ? 0.0 : ((start + end) / 2.0) / documentLength;
  }

  /** PosIR's bin of the relative position: {@code min(19, floor(20 * position))}. */
  public int positionBin() {
    return Math.min(POSITION_BINS - 1, (int) Math.floor(POSITION_BINS * relativePosition()));
  }
}
