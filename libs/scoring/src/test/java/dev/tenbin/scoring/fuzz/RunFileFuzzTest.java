package dev.tenbin.scoring.fuzz;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.tenbin.scoring.metrics.Qrels;
import dev.tenbin.scoring.metrics.ScoredDoc;
import dev.tenbin.scoring.trec.InputFileException;
import dev.tenbin.scoring.trec.QrelsReader;
import dev.tenbin.scoring.trec.TrecRunReader;
import dev.tenbin.scoring.trec.TrecRunWriter;
import dev.tenbin.testing.data.Scratch;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Fuzzes the TREC run and qrels readers with arbitrary bytes, and the run writer with arbitrary
 * runs. Contract: an {@link InputFileException} naming the file (and line), or exactly the records
 * the file holds; whatever the writer writes reads back with the same ids and order, and each score
 * with its bits (an FP32 score as the same float); what it cannot write so is refused.
 */
class RunFileFuzzTest {
  @FuzzTest
  void trecRunBytes(byte[] bytes) throws Exception {
    Path file = Scratch.fresh("run").resolve("run.trec");
    Files.write(file, bytes);
    Map<String, List<ScoredDoc>> run;
    try {
      run = TrecRunReader.read(file);
    } catch (InputFileException refused) {
      assertThat(refused.getMessage()).startsWith(file.toString());
      return;
    }
    List<String[]> lines = dataLines(bytes, "#");
    assertThat(run.values().stream().mapToInt(List::size).sum()).isEqualTo(lines.size());
    Map<String, List<String>> expected = new LinkedHashMap<>();
    for (String[] columns : lines) {
      assertThat(columns).hasSize(6);
      expected.computeIfAbsent(columns[0], q -> new ArrayList<>()).add(columns[2]);
    }
    assertThat(run.keySet()).containsExactlyElementsOf(expected.keySet());
    for (var query : run.entrySet()) {
      assertThat(query.getValue())
          .extracting(ScoredDoc::docId)
          .containsExactlyElementsOf(expected.get(query.getKey()));
      assertThat(query.getValue()).allMatch(doc -> Double.isFinite(doc.score()));
    }
  }

  @FuzzTest
  void qrelsBytes(byte[] bytes) throws Exception {
    Path file = Scratch.fresh("qrels").resolve("qrels.txt");
    Files.write(file, bytes);
    Qrels qrels;
    try {
      qrels = QrelsReader.read(file);
    } catch (InputFileException refused) {
      assertThat(refused.getMessage()).contains(file.toString());
      return;
    }
    List<String[]> lines = dataLines(bytes, null);
    assertThat(qrels.queryIds()).isNotEmpty();
    int columns = lines.getLast().length;
    assertThat(columns).isIn(3, 4);
    for (String[] line : lines.subList(1, lines.size())) {
      assertThat(line).hasSize(columns);
    }
    // Every judgment read is on a line of the file, with that line's grade (or a later one's).
    for (String queryId : qrels.queryIds()) {
      for (var judgment : qrels.judgments(queryId).entrySet()) {
        assertThat(lines)
            .anySatisfy(
                line -> {
                  assertThat(line[0]).isEqualTo(queryId);
                  assertThat(line[columns - 2]).isEqualTo(judgment.getKey());
                  assertThat(grade(line[columns - 1])).isEqualTo(judgment.getValue());
                });
      }
    }
  }

  @FuzzTest
  void writtenRunsReadBackExactly(FuzzedDataProvider data) throws Exception {
    Map<String, List<ScoredDoc>> run = new LinkedHashMap<>();
    int queries = data.consumeInt(0, 4);
    for (int q = 0; q < queries; q++) {
      List<ScoredDoc> docs = new ArrayList<>();
      String queryId = data.consumeString(8);
      int count = data.consumeInt(0, 5);
      for (int d = 0; d < count; d++) {
        double score = data.consumeBoolean() ? data.consumeFloat() : data.consumeDouble();
        if (!Double.isNaN(score)) {
          docs.add(new ScoredDoc(data.consumeString(8), score));
        }
      }
      run.put(queryId, docs);
    }
    String tag = data.consumeRemainingAsString();
    Path file = Scratch.fresh("written").resolve("run.trec");
    try {
      TrecRunWriter.write(file, run, tag);
    } catch (IllegalArgumentException refused) {
      assertThat(refused.getMessage()).containsAnyOf("query id", "doc id", "tag", "score");
      return;
    }
    Map<String, List<ScoredDoc>> back = TrecRunReader.read(file);
    // The file holds the tie-broken scores (strictly decreasing within a query), exactly.
    Map<String, List<ScoredDoc>> written = new LinkedHashMap<>();
    run.forEach(
        (query, docs) -> {
          if (!docs.isEmpty()) {
            written.put(query, TrecRunWriter.tieBroken(docs));
          }
        });
    assertThat(back.keySet()).containsExactlyElementsOf(written.keySet());
    for (var query : written.entrySet()) {
      List<ScoredDoc> read = back.get(query.getKey());
      assertThat(read).hasSameSizeAs(query.getValue());
      for (int i = 0; i < read.size(); i++) {
        assertThat(read.get(i).docId()).isEqualTo(query.getValue().get(i).docId());
        assertThat(read.get(i).docId()).isEqualTo(run.get(query.getKey()).get(i).docId());
        if (i > 0) {
          assertThat(read.get(i).score())
              .as("written score of %s", read.get(i).docId())
              .isLessThan(read.get(i - 1).score());
        }
        double score = query.getValue().get(i).score();
        if ((double) (float) score == score) {
          // An FP32 score is written as the shortest float decimal: it reads back as that float.
          assertThat(Float.floatToIntBits((float) read.get(i).score()))
              .as("FP32 score of %s", read.get(i).docId())
              .isEqualTo(Float.floatToIntBits((float) score));
        } else {
          assertThat(Double.doubleToLongBits(read.get(i).score()))
              .as("score of %s", read.get(i).docId())
              .isEqualTo(Double.doubleToLongBits(score));
        }
      }
    }
  }

  private static Integer grade(String text) {
    try {
      return Integer.valueOf(text);
    } catch (NumberFormatException e) {
      return null;
    }
  }

  /**
   * The whitespace-split columns of the lines a reader keeps: non-blank, not starting with {@code
   * comment}.
   */
  private static List<String[]> dataLines(byte[] bytes, String comment) {
    List<String[]> lines = new ArrayList<>();
    for (String line : new String(bytes, StandardCharsets.UTF_8).split("\r\n|\r|\n", -1)) {
      String stripped = line.strip();
      if (!stripped.isEmpty() && (comment == null || !stripped.startsWith(comment))) {
        lines.add(stripped.split("\\s+"));
      }
    }
    return lines;
  }
}
