package dev.tenbin.scoring.trec;

import dev.tenbin.scoring.metrics.ScoredDoc;
import dev.tenbin.scoring.text.WhitespaceSplit;
import java.io.BufferedReader;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;

/**
 * Reads a TREC run file: {@code qid Q0 docid rank score tag}, six whitespace-separated columns.
 * Blank lines and lines starting with {@code #} are skipped, as trec_eval skips them. The rank
 * column must be present but is not used; ids follow {@link RecordIds}: trec_eval orders by score
 * (see {@code RunOrder}). The score is parsed as a double, as trec_eval's {@code atof} does, and
 * must be finite.
 */
public final class TrecRunReader {
  private static final int COLUMNS = 6;
  static final long MAX_IN_MEMORY_BYTES = 1L << 30;
  private static final int MIN_SLICE_BYTES = 1 << 20;

  private TrecRunReader() {}

  /**
   * Query id to documents in file order, queries in the order first seen. Repeated documents are
   * kept here; evaluation keeps the first of each.
   *
   * <p>A file up to {@value #MAX_IN_MEMORY_BYTES} bytes is read at once and parsed in parallel
   * slices of whole lines, merged in file order (the result, and the first error reported, are
   * those of reading line by line); a larger one is streamed line by line.
   *
   * @throws InputFileException naming the file (and line) of anything missing or malformed
   */
  public static Map<String, List<ScoredDoc>> read(Path file) {
    if (!Files.isRegularFile(file)) {
      throw InputFileException.of(file, "run file not found");
    }
    try {
      return Files.size(file) <= MAX_IN_MEMORY_BYTES
          ? readInSlices(file, Files.readAllBytes(file))
          : readStreaming(file);
    } catch (IOException e) {
      throw InputFileException.of(file, "cannot read run file (" + e.getMessage() + ")");
    }
  }

  private static Map<String, List<ScoredDoc>> readInSlices(Path file, byte[] bytes) {
    int count =
        bytes.length < MIN_SLICE_BYTES
            ? 1
            : Math.min(Runtime.getRuntime().availableProcessors(), bytes.length / MIN_SLICE_BYTES);
    int[] bounds = new int[count + 1];
    bounds[count] = bytes.length;
    for (int s = 1; s < count; s++) {
      int at = Math.max(bounds[s - 1], (int) ((long) bytes.length * s / count));
      while (at < bytes.length && bytes[at - 1] != '\n') {
        at++;
      }
      bounds[s] = at;
    }
    Slice[] slices = new Slice[count];
    IntStream.range(0, count)
        .parallel()
        .forEach(s -> slices[s] = Slice.parse(bytes, bounds[s], bounds[s + 1]));
    Map<String, List<ScoredDoc>> run = new LinkedHashMap<>();
    int linesBefore = 0;
    for (Slice slice : slices) {
      if (slice.problem != null) {
        throw InputFileException.atLine(file, linesBefore + slice.problemLine, slice.problem);
      }
      for (int g = 0; g < slice.queryIds.size(); g++) {
        run.computeIfAbsent(slice.queryIds.get(g), q -> new ArrayList<>())
            .addAll(slice.rankings.get(g));
      }
      linesBefore += slice.lines;
    }
    return run;
  }

  /** Reading line by line, as files over {@value #MAX_IN_MEMORY_BYTES} bytes are read. */
  static Map<String, List<ScoredDoc>> readStreaming(Path file) throws IOException {
    Slice slice = new Slice();
    try (BufferedReader reader = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
      String line;
      while (slice.problem == null && (line = reader.readLine()) != null) {
        slice.add(line);
      }
    } catch (CharacterCodingException e) {
      throw InputFileException.atLine(file, slice.lines + 1, "not valid UTF-8");
    }
    if (slice.problem != null) {
      throw InputFileException.atLine(file, slice.problemLine, slice.problem);
    }
    Map<String, List<ScoredDoc>> run = new LinkedHashMap<>();
    for (int g = 0; g < slice.queryIds.size(); g++) {
      run.computeIfAbsent(slice.queryIds.get(g), q -> new ArrayList<>())
          .addAll(slice.rankings.get(g));
    }
    return run;
  }

  /**
   * The lines of one part of the file: runs of consecutive lines of one query, and the first
   * problem (with its line number within the part), after which nothing more is read.
   */
  private static final class Slice {
    final List<String> queryIds = new ArrayList<>();
    final List<List<ScoredDoc>> rankings = new ArrayList<>();
    final int[] bounds = new int[2 * COLUMNS];
    int lines;
    int problemLine;
    String problem;

    /** Lines end at \\n, \\r or \\r\\n, as {@link BufferedReader#readLine()} ends them. */
    static Slice parse(byte[] bytes, int from, int to) {
      Slice slice = new Slice();
      CharsetDecoder strict = StandardCharsets.UTF_8.newDecoder();
      int i = from;
      while (i < to && slice.problem == null) {
        int start = i;
        boolean ascii = true;
        while (i < to && bytes[i] != '\n' && bytes[i] != '\r') {
          ascii &= bytes[i] >= 0;
          i++;
        }
        int end = i;
        if (i < to && bytes[i] == '\r' && i + 1 < to && bytes[i + 1] == '\n') {
          i += 2;
        } else if (i < to) {
          i++;
        }
        if (ascii) {
          slice.addAscii(bytes, start, end);
        } else {
          try {
            slice.add(strict.decode(ByteBuffer.wrap(bytes, start, end - start)).toString());
          } catch (CharacterCodingException e) {
            slice.lines++;
            slice.fail("not valid UTF-8");
          }
        }
      }
      return slice;
    }

    void add(String line) {
      lines++;
      int columns = WhitespaceSplit.columns(line, bounds);
      if (columns == 0 || line.charAt(bounds[0]) == '#') {
        return;
      }
      if (columns != COLUMNS) {
        fail("expected 6 columns (qid Q0 docid rank score tag), got " + columns);
        return;
      }
      String lastQueryId = queryIds.isEmpty() ? null : queryIds.getLast();
      if (lastQueryId == null
          || lastQueryId.length() != bounds[1] - bounds[0]
          || !line.startsWith(lastQueryId, bounds[0])) {
        if (!startQuery(line.substring(bounds[0], bounds[1]))) {
          return;
        }
      }
      String docId = line.substring(bounds[4], bounds[5]);
      if (!isDocumentId(docId)) {
        return;
      }
      double score = parsedScore(line.substring(bounds[8], bounds[9]));
      if (Double.isNaN(score)) {
        return;
      }
      rankings.getLast().add(new ScoredDoc(docId, score));
    }

    /**
     * {@link #add} of the ASCII line {@code bytes[from, to)}, read from the bytes: only the ids
     * become Strings (and the score's text when it is not a plain decimal).
     */
    void addAscii(byte[] bytes, int from, int to) {
      lines++;
      int columns = columns(bytes, from, to, bounds);
      if (columns == 0 || bytes[bounds[0]] == '#') {
        return;
      }
      if (columns != COLUMNS) {
        fail("expected 6 columns (qid Q0 docid rank score tag), got " + columns);
        return;
      }
      String lastQueryId = queryIds.isEmpty() ? null : queryIds.getLast();
      if (lastQueryId == null || !equalsAscii(lastQueryId, bytes, bounds[0], bounds[1])) {
        if (!startQuery(ascii(bytes, bounds[0], bounds[1]))) {
          return;
        }
      }
      String docId = ascii(bytes, bounds[4], bounds[5]);
      if (!isDocumentId(docId)) {
        return;
      }
      double score = plainDecimal(bytes, bounds[8], bounds[9]);
      if (Double.isNaN(score)) {
        score = parsedScore(ascii(bytes, bounds[8], bounds[9]));
        if (Double.isNaN(score)) {
          return;
        }
      }
      rankings.getLast().add(new ScoredDoc(docId, score));
    }

    /** Starts the lines of a new query; false (after failing) when the id cannot be one. */
    private boolean startQuery(String queryId) {
      String problem = RecordIds.problem(queryId);
      if (problem != null) {
        fail("query id " + problem);
        return false;
      }
      queryIds.add(queryId);
      rankings.add(new ArrayList<>());
      return true;
    }

    /** Whether the document id can be one; fails when not. */
    private boolean isDocumentId(String docId) {
      String problem = RecordIds.problem(docId);
      if (problem != null) {
        fail("document id " + problem);
        return false;
      }
      return true;
    }

    /** The score a text holds, or NaN (after failing) when it is not a finite number. */
    private double parsedScore(String text) {
      double score;
      try {
        score = Double.parseDouble(text);
      } catch (NumberFormatException e) {
        fail("score '" + text + "' is not a number");
        return Double.NaN;
      }
      if (!Double.isFinite(score)) {
        fail("score '" + text + "' is not finite");
        return Double.NaN;
      }
      return score;
    }

    private void fail(String problem) {
      this.problem = problem;
      this.problemLine = lines;
    }
  }

  /**
   * {@link WhitespaceSplit#columns(String, int[])} of the ASCII text {@code bytes[from, to)};
   * bounds index bytes.
   */
  static int columns(byte[] bytes, int from, int to, int[] bounds) {
    while (from < to && WhitespaceSplit.isStripped(bytes[from])) {
      from++;
    }
    while (to > from && WhitespaceSplit.isStripped(bytes[to - 1])) {
      to--;
    }
    int columns = 0;
    int i = from;
    while (i < to) {
      int start = i;
      while (i < to && !WhitespaceSplit.isSeparator((char) bytes[i])) {
        i++;
      }
      if (2 * columns < bounds.length) {
        bounds[2 * columns] = start;
        bounds[2 * columns + 1] = i;
      }
      columns++;
      while (i < to && WhitespaceSplit.isSeparator((char) bytes[i])) {
        i++;
      }
    }
    return columns;
  }

  private static final long MAX_EXACT_MANTISSA = 1L << 53;
  private static final double[] EXACT_POWERS_OF_TEN = {
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
    1e17, 1e18, 1e19, 1e20, 1e21, 1e22
  };

  /**
   * {@link Double#parseDouble} of the ASCII text {@code bytes[from, to)} when it is a plain decimal
   * ({@code [+-]digits[.digits]}, at least one digit) whose digits, read as an integer, are at most
   * 2^53 with at most 22 after the point; NaN for any other text. Such a number is an exact double
   * divided by an exact power of ten, and one IEEE division rounds that quotient correctly, as
   * parseDouble rounds the decimal (the fast path of Clinger's algorithm).
   */
  static double plainDecimal(byte[] bytes, int from, int to) {
    int i = from;
    boolean negative = false;
    if (i < to && (bytes[i] == '-' || bytes[i] == '+')) {
      negative = bytes[i] == '-';
      i++;
    }
    long mantissa = 0;
    int digits = 0;
    int fractionDigits = -1;
    for (; i < to; i++) {
      byte b = bytes[i];
      if (b >= '0' && b <= '9') {
        if (++digits > 18) {
          return Double.NaN;
        }
        mantissa = mantissa * 10 + (b - '0');
        if (fractionDigits >= 0) {
          fractionDigits++;
        }
      } else if (b == '.' && fractionDigits < 0) {
        fractionDigits = 0;
      } else {
        return Double.NaN;
      }
    }
    int scale = Math.max(fractionDigits, 0);
    if (digits == 0 || mantissa > MAX_EXACT_MANTISSA || scale >= EXACT_POWERS_OF_TEN.length) {
      return Double.NaN;
    }
    double value = mantissa / EXACT_POWERS_OF_TEN[scale];
    return negative ? -value : value;
  }

  private static boolean equalsAscii(String text, byte[] bytes, int from, int to) {
    if (text.length() != to - from) {
      return false;
    }
    for (int i = from; i < to; i++) {
      if (text.charAt(i - from) != bytes[i]) {
        return false;
      }
    }
    return true;
  }

  private static String ascii(byte[] bytes, int from, int to) {
    return new String(bytes, from, to - from, StandardCharsets.ISO_8859_1);
  }
}
