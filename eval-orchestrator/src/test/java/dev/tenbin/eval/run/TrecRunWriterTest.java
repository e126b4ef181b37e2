package dev.tenbin.eval.run;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tenbin.eval.metrics.ScoredDoc;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TrecRunWriterTest {
  @TempDir Path tmp;

  @Test
  void writesOneLinePerDocumentWithRanksFromOneInTheOrderGiven() throws Exception {
    Map<String, List<ScoredDoc>> run = new LinkedHashMap<>();
    run.put("q2", List.of(new ScoredDoc("d1", 2.5946288f), new ScoredDoc("d2", 1e-7f)));
    run.put("q1", List.of(new ScoredDoc("d3", 3)));
    StringWriter out = new StringWriter();
    TrecRunWriter.write(out, run, "tenbin-bm25");
    assertThat(out.toString())
        .isEqualTo(
            "q2 Q0 d1 1 2.5946288 tenbin-bm25\n"
                + "q2 Q0 d2 2 1.0E-7 tenbin-bm25\n"
                + "q1 Q0 d3 1 3.0 tenbin-bm25\n");
  }

  @Test
  void fp32ScoresRoundTripThroughAFileExactlySoTiesAndOneUlpGapsSurvive() throws Exception {
    float a = 2.5946288f;
    float b = Math.nextDown(a);
    Map<String, List<ScoredDoc>> run =
        Map.of("q", List.of(new ScoredDoc("d1", a), new ScoredDoc("d2", a), new ScoredDoc("d3", b)));
    Path file = tmp.resolve("run.trec");
    TrecRunWriter.write(file, run, "tag");
    List<ScoredDoc> read = TrecRunReader.read(file).get("q");
    assertThat(read).extracting(doc -> (float) doc.score()).containsExactly(a, a, b);
    assertThat(read.get(0).score()).isEqualTo(read.get(1).score()).isGreaterThan(read.get(2).score());
  }

  @Property(tries = 500)
  void everyFloatReadsBackToItself(@ForAll float score) {
    if (!Float.isFinite(score)) {
      return;
    }
    assertThat((float) Double.parseDouble(TrecRunWriter.format(score))).isEqualTo(score);
  }

  @Test
  void aDoubleThatIsNotAFloatKeepsEveryDigit() {
    assertThat(Double.parseDouble(TrecRunWriter.format(0.30000000001))).isEqualTo(0.30000000001);
  }

  @Test
  void idsAndTagsWithWhitespaceAreRefused() {
    assertThatThrownBy(() -> TrecRunWriter.write(new StringWriter(), Map.of("q", List.of(new ScoredDoc("a b", 1))), "t"))
        .hasMessageContaining("doc id 'a b'");
    assertThatThrownBy(() -> TrecRunWriter.write(new StringWriter(), Map.of(), "my run"))
        .hasMessageContaining("tag");
  }

  @Test
  void whatWouldNotReadBackIsRefused() {
    assertThatThrownBy(() -> TrecRunWriter.write(new StringWriter(), Map.of("#q", List.of(new ScoredDoc("d", 1))), "t"))
        .as("a query id starting with # would read back as a comment line")
        .hasMessageContaining("query id '#q'");
    assertThatThrownBy(() -> TrecRunWriter.write(new StringWriter(), Map.of("q", List.of(new ScoredDoc("d", Double.NEGATIVE_INFINITY))), "t"))
        .hasMessageContaining("not finite");
    assertThatThrownBy(() -> TrecRunWriter.write(new StringWriter(), Map.of("q\u0001", List.of(new ScoredDoc("d", 1))), "t"))
        .hasMessageContaining("control character");
  }
}
