package dev.tenbin.scoring.trec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tenbin.scoring.metrics.ScoredDoc;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TrecRunReaderTest {
  @TempDir Path tmp;

  @Test
  void readsQueriesAndDocumentsInFileOrderIgnoringTheRankColumn() throws Exception {
    Path file =
        Files.writeString(
            tmp.resolve("run.trec"),
            "# a comment\nq2 Q0 d9 7 1.5 tag\n\nq1 Q0 d1 1 -2e-3 tag\nq2\tQ0\td8\t1\t3 tag\nq2 Q0 d9 3 0.5 tag\n");
    Map<String, List<ScoredDoc>> run = TrecRunReader.read(file);
    assertThat(run.keySet()).containsExactly("q2", "q1");
    assertThat(run.get("q2"))
        .containsExactly(
            new ScoredDoc("d9", 1.5), new ScoredDoc("d8", 3), new ScoredDoc("d9", 0.5));
    assertThat(run.get("q1")).containsExactly(new ScoredDoc("d1", -0.002));
  }

  @Test
  void scoresKeepDoublePrecisionAsTrecEvalReadsThem() throws Exception {
    // Equal as floats, different as doubles: trec_eval 10 does not tie them, neither does Tenbin.
    Path file =
        Files.writeString(
            tmp.resolve("run"), "q Q0 a 1 0.30000000001 t\nq Q0 b 2 0.30000000002 t\n");
    List<ScoredDoc> docs = TrecRunReader.read(file).get("q");
    assertThat((float) docs.get(0).score()).isEqualTo((float) docs.get(1).score());
    assertThat(docs.get(0).score()).isLessThan(docs.get(1).score());
  }

  @Test
  void aLineWithTheWrongColumnCountIsNamedByFileAndLine() throws Exception {
    Path file = Files.writeString(tmp.resolve("bad.run"), "q1 Q0 d1 1 0.5 t\nq1 Q0 d2 2 0.4\n");
    assertThatThrownBy(() -> TrecRunReader.read(file))
        .isInstanceOf(InputFileException.class)
        .hasMessageContaining("bad.run line 2")
        .hasMessageContaining("expected 6 columns (qid Q0 docid rank score tag), got 5");
  }

  @Test
  void aScoreThatIsNotAFiniteNumberIsNamedByFileAndLine() throws Exception {
    Path text =
        Files.writeString(tmp.resolve("text.run"), "q1 Q0 d1 1 0.5 t\nq1 Q0 d2 2 notanumber t\n");
    assertThatThrownBy(() -> TrecRunReader.read(text))
        .hasMessageContaining("text.run line 2")
        .hasMessageContaining("'notanumber'");
    Path nan = Files.writeString(tmp.resolve("nan.run"), "q1 Q0 d1 1 NaN t\n");
    assertThatThrownBy(() -> TrecRunReader.read(nan))
        .hasMessageContaining("nan.run line 1")
        .hasMessageContaining("finite");
  }

  @Test
  void aMissingFileIsRefusedByName() {
    assertThatThrownBy(() -> TrecRunReader.read(tmp.resolve("absent.run")))
        .isInstanceOf(InputFileException.class)
        .hasMessageContaining("run file not found")
        .hasMessageContaining("absent.run");
  }

  @Test
  void anEmptyFileIsAnEmptyRun() throws Exception {
    assertThat(TrecRunReader.read(Files.writeString(tmp.resolve("empty.run"), ""))).isEmpty();
  }

  @Property
  void columnsAreThoseOfStripThenSplitAtAsciiWhitespace(@ForAll("lines") String line) {
    String stripped = line.strip();
    String[] expected = stripped.isEmpty() ? new String[0] : stripped.split("\\s+");
    int[] bounds = new int[2 * 8];
    int columns = dev.tenbin.scoring.text.WhitespaceSplit.columns(line, bounds);
    assertThat(columns).isEqualTo(expected.length);
    for (int c = 0; c < Math.min(columns, 8); c++) {
      assertThat(line.substring(bounds[2 * c], bounds[2 * c + 1])).isEqualTo(expected[c]);
    }
  }

  @Provide
  Arbitrary<String> lines() {
    // Words, ASCII separators, and Unicode whitespace that strip() removes but \\s does not split.
    return Arbitraries.of(
            "q1",
            "Q0",
            "d\uD83D\uDE00",
            "1.5",
            "#",
            " ",
            "\t",
            "\u000B",
            "\f",
            "\r",
            "\u2003",
            "\u00A0",
            "\u3000")
        .list()
        .ofMaxSize(14)
        .map(parts -> String.join("", parts));
  }

  @Property
  void aPlainDecimalIsReadAsParseDoubleReadsIt(@ForAll("decimals") String text) {
    byte[] bytes = ("x" + text + "y").getBytes(StandardCharsets.US_ASCII);
    double fast = TrecRunReader.plainDecimal(bytes, 1, bytes.length - 1);
    if (!Double.isNaN(fast)) {
      assertThat(Double.doubleToRawLongBits(fast))
          .as(text)
          .isEqualTo(Double.doubleToRawLongBits(Double.parseDouble(text)));
    }
  }

  @Provide
  Arbitrary<String> decimals() {
    Arbitrary<String> formatted =
        Arbitraries.doubles()
            .map(
                d ->
                    List.of(
                        Double.toString(d),
                        String.format(Locale.ROOT, "%.4f", d),
                        String.format(Locale.ROOT, "%.17f", d),
                        new BigDecimal(d).toPlainString()))
            .flatMap(Arbitraries::of);
    Arbitrary<String> digits =
        Arbitraries.strings().withChars("0123456789.-+e").ofMinLength(1).ofMaxLength(24);
    Arbitrary<String> edges =
        Arbitraries.of(
            "-0",
            "+0.0",
            "0.",
            ".5",
            "-.5",
            "9007199254740992",
            "9007199254740993",
            "0.1000000000000000055511151231257827",
            "1e22",
            "123456789012345678",
            "1.5d",
            "-");
    return Arbitraries.oneOf(formatted, digits, edges);
  }

  @Property(tries = 300)
  void readingTheBytesGivesWhatReadingLineByLineGives(@ForAll("runFiles") String text)
      throws Exception {
    // jqwik runs properties without JUnit's @TempDir.
    Path file = Files.writeString(Files.createTempFile("property", ".run"), text);
    Object lineByLine;
    Object fromBytes;
    try {
      lineByLine = TrecRunReader.readStreaming(file);
    } catch (InputFileException e) {
      lineByLine = e.getMessage();
    }
    try {
      fromBytes = TrecRunReader.read(file);
    } catch (InputFileException e) {
      fromBytes = e.getMessage();
    }
    Files.delete(file);
    assertThat(fromBytes).isEqualTo(lineByLine);
  }

  @Provide
  Arbitrary<String> runFiles() {
    // Columns and separators as they come: tabs or runs of spaces, stripped control characters
    // (U+001C..U+001F) at the ends, CR LF, comments, blank lines, repeated documents, scores
    // that are plain, scientific, suffixed, out of range or not numbers, too few or many columns.
    Arbitrary<String> separator = Arbitraries.of(" ", "\t", "  ", " \t ", "\u000B", "\f");
    Arbitrary<String> edge = Arbitraries.of("", " ", "\t", "\u001C", "\u001F ");
    Arbitrary<String> query = Arbitraries.of("q1", "q2", "q10", "#", "#q1");
    Arbitrary<String> doc = Arbitraries.of("d1", "d2", "D1", "d-3");
    Arbitrary<String> score =
        Arbitraries.of(
            "1.5",
            "-0",
            "2",
            "0.1",
            "1e3",
            "-2.5E-3",
            "+4.25",
            ".5",
            "5.",
            "1.5d",
            "NaN",
            "Infinity",
            "1e400",
            "x",
            "12345678901234567890.5",
            "0.30000000000000004",
            "3.14159265358979323846");
    Arbitrary<String> line =
        Combinators.combine(
                edge, query, doc, score, separator, Arbitraries.integers().between(4, 7), edge)
            .as(
                (lead, q, d, sc, sep, count, trail) -> {
                  List<String> columns = List.of(q, "Q0", d, "1", sc, "tag", "extra");
                  return lead + String.join(sep, columns.subList(0, count)) + trail;
                });
    Arbitrary<String> anyLine = Arbitraries.oneOf(line, line, line, Arbitraries.of("", "  "));
    Arbitrary<String> end = Arbitraries.of("\n", "\n", "\r\n", "\r");
    return Combinators.combine(anyLine, end)
        .as((l, e) -> l + e)
        .list()
        .ofMaxSize(12)
        .map(lines -> String.join("", lines));
  }

  @Test
  void scoresInEveryNotationAndLinesInEveryLayoutAreReadAsTrecEvalReadsThem() throws Exception {
    Path file =
        Files.writeString(
            tmp.resolve("run"),
            "q1\tQ0\td1\t1\t1.5e2\ttag\r\n"
                + "  q1  Q0 d2 2 -0.25 tag \t\r\n"
                + "q1 Q0 d1 3 7 tag\n"
                + "q1 Q0 d3 4 +.5 tag\u001C\n"
                + "q1 Q0 d4 5 2.5d tag\n");
    assertThat(TrecRunReader.read(file).get("q1"))
        .containsExactly(
            new ScoredDoc("d1", 150),
            new ScoredDoc("d2", -0.25),
            new ScoredDoc("d1", 7),
            new ScoredDoc("d3", 0.5),
            new ScoredDoc("d4", 2.5));
  }

  @Test
  void unicodeWhitespaceInsideAnIdIsRefusedWhileAtTheLineEndsItIsStripped() throws Exception {
    Path file =
        Files.writeString(tmp.resolve("run"), "\u2003q Q0 a 1 1 t\u3000\nq Q0 b\u2003c 2 1 t\n");
    assertThatThrownBy(() -> TrecRunReader.read(file))
        .isInstanceOf(InputFileException.class)
        .hasMessageContaining("line 2")
        .hasMessageContaining("document id holds whitespace (U+2003)");
  }

  @Test
  void linesOfOneQueryNeedNotBeAdjacent() throws Exception {
    Path file =
        Files.writeString(
            tmp.resolve("run"), "q1 Q0 a 1 1 t\nq10 Q0 b 1 1 t\nq1 Q0 c 2 0.5 t\nq Q0 d 1 1 t\n");
    Map<String, List<ScoredDoc>> run = TrecRunReader.read(file);
    assertThat(run.keySet()).containsExactly("q1", "q10", "q");
    assertThat(run.get("q1")).containsExactly(new ScoredDoc("a", 1), new ScoredDoc("c", 0.5));
  }

  @Test
  void aFileReadInParallelSlicesGivesWhatReadingLineByLineGives() throws Exception {
    StringBuilder text = new StringBuilder();
    Map<String, List<ScoredDoc>> expected = new java.util.LinkedHashMap<>();
    java.util.Random random = new java.util.Random(5);
    for (int line = 0; line < 120_000; line++) {
      // Queries come back after others and change in the middle of slices; mixed line ends.
      String query = "q" + (line / 700) % 90;
      String doc = (line % 997 == 0 ? "d\u00E9" : "d") + line;
      double score = random.nextInt(1000) / 8.0;
      text.append(query).append(" Q0 ").append(doc).append(" 1 ").append(score).append(" t");
      text.append(line % 3 == 0 ? "\r\n" : line % 3 == 1 ? "\n" : "\r");
      expected
          .computeIfAbsent(query, q -> new java.util.ArrayList<>())
          .add(new ScoredDoc(doc, score));
    }
    Path file = Files.writeString(tmp.resolve("big.run"), text);
    assertThat(Files.size(file)).isGreaterThan(2L << 20);

    Map<String, List<ScoredDoc>> run = TrecRunReader.read(file);

    assertThat(run.keySet()).containsExactlyElementsOf(expected.keySet());
    expected.forEach((query, docs) -> assertThat(run.get(query)).as(query).isEqualTo(docs));
  }

  @Test
  void theFirstBadLineOfALargeFileIsNamedByItsLineNumber() throws Exception {
    StringBuilder text = new StringBuilder();
    for (int line = 1; line <= 100_000; line++) {
      text.append(line == 77_777 ? "q Q0 d 1 x t\n" : "q Q0 d" + line + " 1 0.5 t\n");
    }
    text.append("q Q0 d 1\n");
    Path file = Files.writeString(tmp.resolve("bad.run"), text);
    assertThatThrownBy(() -> TrecRunReader.read(file))
        .isInstanceOf(InputFileException.class)
        .hasMessageContaining("bad.run line 77777: score 'x' is not a number");
  }

  @Test
  void invalidUtf8IsNamedByItsLine() throws Exception {
    byte[] good = "q Q0 d\u00E9 1 1 t\n".getBytes(java.nio.charset.StandardCharsets.UTF_8);
    byte[] bad = {'q', ' ', 'Q', '0', ' ', 'd', (byte) 0xC3, ' ', '2', ' ', '1', ' ', 't', '\n'};
    Path file = tmp.resolve("utf.run");
    Files.write(file, good);
    Files.write(file, bad, java.nio.file.StandardOpenOption.APPEND);
    assertThatThrownBy(() -> TrecRunReader.read(file))
        .isInstanceOf(InputFileException.class)
        .hasMessageContaining("utf.run line 2: not valid UTF-8");
    Files.write(file, good);
    assertThat(TrecRunReader.read(file).get("q")).containsExactly(new ScoredDoc("d\u00E9", 1));
  }
}
