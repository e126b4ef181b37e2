package dev.tenbin.scoring.trec;

import java.nio.file.Path;

/**
 * A run or qrels file that cannot be used: missing, unreadable, or with a malformed line. The
 * message names the file and, for a malformed line, its 1-based line number, e.g. {@code run.trec
 * line 7: expected 6 columns (qid Q0 docid rank score tag), got 5}.
 */
public final class InputFileException extends IllegalArgumentException {
  private final transient Path file;
  private final int line;

  private InputFileException(Path file, int line, String message) {
    super(message);
    this.file = file;
    this.line = line;
  }

  /** A problem with the file as a whole (missing, unreadable, empty). */
  static InputFileException of(Path file, String problem) {
    return new InputFileException(file, 0, problem + ": " + file);
  }

  /** A malformed line. */
  static InputFileException atLine(Path file, int line, String problem) {
    return new InputFileException(file, line, file + " line " + line + ": " + problem);
  }

  public Path file() {
    return file;
  }

  /** The 1-based line number, or 0 when the problem is not on one line. */
  public int line() {
    return line;
  }
}
