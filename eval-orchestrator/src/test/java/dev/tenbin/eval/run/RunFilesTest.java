package dev.tenbin.eval.run;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tenbin.eval.metrics.Qrels;
import dev.tenbin.eval.metrics.ScoredDoc;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RunFilesTest {
  @TempDir Path tmp;

  @Test
  void runFilesRoundTripFp32ScoresExactly() throws Exception {
    Map<String, List<ScoredDoc>> run = new LinkedHashMap<>();
    float a = 2.5946288f;
    float b = Math.nextDown(a);
    run.put("q1", List.of(new ScoredDoc("d1", a), new ScoredDoc("d2", b), new ScoredDoc("d3", 1e-7f)));
    Path file = tmp.resolve("run.trec");
    TrecRunWriter.write(file, run, "tag");
    assertThat(Files.readAllLines(file).getFirst()).isEqualTo("q1 Q0 d1 1 2.5946288 tag");
    // The shortest decimal of a float reads back (as a float) to the same float: order and ties
    // survive, which is what trec_eval and the tie-aware metrics need.
    List<ScoredDoc> read = TrecRunReader.read(file).get("q1");
    assertThat(read).extracting(ScoredDoc::docId).containsExactly("d1", "d2", "d3");
    assertThat(read).extracting(doc -> (float) doc.score()).containsExactly(a, b, 1e-7f);
    assertThat(read.get(0).score()).isGreaterThan(read.get(1).score());
  }

  @Test
  void qrelsAreReadInTrecAndBeirForms() throws Exception {
    Path trec = Files.writeString(tmp.resolve("q.trec"), "q1 0 d1 2\nq1 0 d2 0\nq2 0 d3 1\n");
    Path beir = Files.writeString(tmp.resolve("q.tsv"), "query-id\tcorpus-id\tscore\nq1\td1\t2\nq1\td2\t0\nq2\td3\t1\n");
    Qrels fromTrec = QrelsReader.read(trec);
    Qrels fromBeir = QrelsReader.read(beir);
    for (Qrels qrels : List.of(fromTrec, fromBeir)) {
      assertThat(qrels.queryIds()).containsExactly("q1", "q2");
      assertThat(qrels.grade("q1", "d1")).isEqualTo(2);
      assertThat(qrels.relevantCount("q1")).isEqualTo(1);
    }
  }

  @Test
  void malformedLinesAreNamedByFileAndLine() throws Exception {
    Path run = Files.writeString(tmp.resolve("bad.run"), "q1 Q0 d1 1 0.5 t\nq1 Q0 d2 2 notanumber t\n");
    assertThatThrownBy(() -> TrecRunReader.read(run)).hasMessageContaining("bad.run line 2").hasMessageContaining("notanumber");
    Path qrels = Files.writeString(tmp.resolve("bad.qrels"), "q1 0 d1 1\nq1 0 d2\n");
    assertThatThrownBy(() -> QrelsReader.read(qrels)).hasMessageContaining("bad.qrels line 2");
  }
}
