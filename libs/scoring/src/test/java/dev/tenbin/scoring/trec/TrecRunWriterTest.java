package dev.tenbin.scoring.trec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tenbin.scoring.metrics.Evaluation;
import dev.tenbin.scoring.metrics.Qrels;
import dev.tenbin.scoring.metrics.RankingEvaluator;
import dev.tenbin.scoring.metrics.RunOrder;
import dev.tenbin.scoring.metrics.ScoredDoc;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
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
  void untiedFp32ScoresRoundTripThroughAFileExactlySoOneUlpGapsSurvive() throws Exception {
    float a = 2.5946288f;
    float b = Math.nextDown(a);
    Map<String, List<ScoredDoc>> run =
        Map.of(
            "q",
            List.of(new ScoredDoc("d1", a), new ScoredDoc("d2", b), new ScoredDoc("d3", -0.5f)));
    Path file = tmp.resolve("run.trec");
    TrecRunWriter.write(file, run, "tag");
    List<ScoredDoc> read = TrecRunReader.read(file).get("q");
    assertThat(read)
        .extracting(doc -> Float.floatToRawIntBits((float) doc.score()))
        .containsExactly(
            Float.floatToRawIntBits(a), Float.floatToRawIntBits(b), Float.floatToRawIntBits(-0.5f));
  }

  @Test
  void tiedFp32ScoresAreWrittenOneFp32UlpApartBelowTheScoreAboveThem() throws Exception {
    float a = 2.5946288f;
    float b = Math.nextDown(a);
    // d1..d3 tie at a; d4 is one ulp below a, so the tie-broken d3 pushes it down too; d5 ties 0.0
    // as -0.0
    Map<String, List<ScoredDoc>> run =
        Map.of(
            "q",
            List.of(
                new ScoredDoc("d1", a),
                new ScoredDoc("d2", a),
                new ScoredDoc("d3", a),
                new ScoredDoc("d4", b),
                new ScoredDoc("d5", 0.0f),
                new ScoredDoc("d6", -0.0f),
                new ScoredDoc("d7", -1f)));
    StringWriter out = new StringWriter();
    TrecRunWriter.write(out, run, "t");
    float down2 = Math.nextDown(b);
    float down3 = Math.nextDown(down2);
    assertThat(out.toString())
        .isEqualTo(
            "q Q0 d1 1 "
                + a
                + " t\n"
                + "q Q0 d2 2 "
                + b
                + " t\n"
                + "q Q0 d3 3 "
                + down2
                + " t\n"
                + "q Q0 d4 4 "
                + down3
                + " t\n"
                + "q Q0 d5 5 0.0 t\n"
                + "q Q0 d6 6 "
                + Math.nextDown(0.0f)
                + " t\n"
                + "q Q0 d7 7 -1.0 t\n");
  }

  @Test
  void tiedScoresThatAreNotFp32StepByOneFp64Ulp() {
    List<ScoredDoc> written =
        TrecRunWriter.tieBroken(
            List.of(new ScoredDoc("a", 0.1), new ScoredDoc("b", 0.1), new ScoredDoc("c", 0.05f)));
    assertThat(written)
        .extracting(ScoredDoc::score)
        .containsExactly(0.1, Math.nextDown(0.1), (double) 0.05f);
  }

  /**
   * Rankings in Tenbin's tie policy (score descending, doc id ascending) with many exact ties: the
   * written file, read back and re-sorted as trec_eval sorts it, scores exactly as the ranking
   * does.
   */
  @Property(tries = 300)
  void aRunWithExactTiesScoresTheSameUnderTrecEvalOrderAsInTenbinsOrder(
      @ForAll("tiedRankings") Map<String, List<ScoredDoc>> run) throws Exception {
    Map<String, Map<String, Integer>> judgments = new LinkedHashMap<>();
    run.forEach(
        (query, docs) -> {
          Map<String, Integer> grades = new LinkedHashMap<>();
          for (int i = 0; i < docs.size(); i += 3) {
            grades.put(docs.get(i).docId(), 1 + i % 2);
          }
          judgments.put(query, grades);
        });
    Qrels qrels = Qrels.of(judgments);
    List<String> queries = List.copyOf(run.keySet());
    StringWriter out = new StringWriter();
    TrecRunWriter.write(out, run, "t");
    Path file = Files.createTempFile("tied", ".trec");
    try {
      Files.writeString(file, out.toString());
      Map<String, List<ScoredDoc>> readBack = TrecRunReader.read(file);
      Evaluation tenbin =
          RankingEvaluator.standard().evaluate(qrels, run, queries, RunOrder.AS_GIVEN);
      Evaluation trecEval =
          RankingEvaluator.standard().evaluate(qrels, readBack, queries, RunOrder.TREC_EVAL);
      assertThat(trecEval.means()).isEqualTo(tenbin.means());
      assertThat(trecEval.perQuery()).isEqualTo(tenbin.perQuery());
      for (String query : queries) {
        assertThat(RunOrder.TREC_EVAL.apply(readBack.get(query)))
            .extracting(ScoredDoc::docId)
            .containsExactlyElementsOf(run.get(query).stream().map(ScoredDoc::docId).toList());
      }
    } finally {
      Files.deleteIfExists(file);
    }
  }

  @Provide
  Arbitrary<Map<String, List<ScoredDoc>>> tiedRankings() {
    // few distinct scores (some one FP32 ulp apart), so most documents tie with a neighbour
    Arbitrary<Float> score = Arbitraries.of(1.5f, Math.nextDown(1.5f), 0.25f, 0f, -0f, -2f);
    Arbitrary<List<ScoredDoc>> ranking =
        Arbitraries.integers()
            .between(0, 40)
            .set()
            .ofMinSize(1)
            .ofMaxSize(25)
            .flatMap(
                ids ->
                    score
                        .list()
                        .ofSize(ids.size())
                        .map(
                            scores -> {
                              List<String> docIds = ids.stream().map(i -> "d" + i).toList();
                              List<ScoredDoc> docs = new ArrayList<>();
                              for (int i = 0; i < docIds.size(); i++) {
                                docs.add(new ScoredDoc(docIds.get(i), scores.get(i)));
                              }
                              docs.sort(TENBIN_ORDER);
                              return docs;
                            }));
    return ranking
        .list()
        .ofMinSize(1)
        .ofMaxSize(4)
        .map(
            rankings -> {
              Map<String, List<ScoredDoc>> run = new LinkedHashMap<>();
              for (int q = 0; q < rankings.size(); q++) {
                run.put("q" + q, rankings.get(q));
              }
              return run;
            });
  }

  /** Tenbin's tie policy: score descending (0.0 ties -0.0), then doc id ascending. */
  private static final Comparator<ScoredDoc> TENBIN_ORDER =
      (a, b) ->
          a.score() > b.score() ? -1 : a.score() < b.score() ? 1 : a.docId().compareTo(b.docId());

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
    assertThatThrownBy(
            () ->
                TrecRunWriter.write(
                    new StringWriter(), Map.of("q", List.of(new ScoredDoc("a b", 1))), "t"))
        .hasMessageContaining("doc id 'a b'");
    assertThatThrownBy(() -> TrecRunWriter.write(new StringWriter(), Map.of(), "my run"))
        .hasMessageContaining("tag");
  }

  @Test
  void whatWouldNotReadBackIsRefused() {
    assertThatThrownBy(
            () ->
                TrecRunWriter.write(
                    new StringWriter(), Map.of("#q", List.of(new ScoredDoc("d", 1))), "t"))
        .as("a query id starting with # would read back as a comment line")
        .hasMessageContaining("query id '#q'");
    assertThatThrownBy(
            () ->
                TrecRunWriter.write(
                    new StringWriter(),
                    Map.of("q", List.of(new ScoredDoc("d", Double.NEGATIVE_INFINITY))),
                    "t"))
        .hasMessageContaining("not finite");
    assertThatThrownBy(
            () ->
                TrecRunWriter.write(
                    new StringWriter(), Map.of("q\u0001", List.of(new ScoredDoc("d", 1))), "t"))
        .hasMessageContaining("control character");
  }
}
