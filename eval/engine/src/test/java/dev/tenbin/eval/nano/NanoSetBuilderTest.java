package dev.tenbin.eval.nano;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenbin.scoring.beir.BeirDataset;
import dev.tenbin.scoring.beir.BeirDatasetReader;
import dev.tenbin.scoring.beir.CorpusDocument;
import dev.tenbin.scoring.metrics.Qrels;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class NanoSetBuilderTest {
  @TempDir Path tmp;

  /**
   * 300 queries (two with the same text), each with one positive and two hard negatives; 20,000
   * docs.
   */
  private BeirDataset large() {
    List<CorpusDocument> corpus = new ArrayList<>();
    for (int d = 0; d < 20_000; d++) {
      corpus.add(new CorpusDocument(String.format("d%05d", d), "", "text " + d));
    }
    Map<String, String> queries = new LinkedHashMap<>();
    Map<String, Map<String, Integer>> qrels = new LinkedHashMap<>();
    for (int q = 0; q < 300; q++) {
      queries.put("q" + q, q == 1 ? "Query 0" : "query " + q);
      Map<String, Integer> judged = new LinkedHashMap<>();
      judged.put(String.format("d%05d", q * 3), 1);
      judged.put(String.format("d%05d", q * 3 + 1), 0);
      judged.put(String.format("d%05d", q * 3 + 2), 0);
      qrels.put("q" + q, judged);
    }
    return new BeirDataset(
        "large",
        tmp,
        dev.tenbin.scoring.beir.Corpus.of(corpus),
        queries,
        Qrels.of(qrels),
        dev.tenbin.scoring.beir.SpanQrels.none(),
        new ArrayList<>(queries.keySet()),
        List.of());
  }

  @Test
  void nanoSetsKeepPositivesThenHardNegativesThenFillerUpToTheCaps() throws Exception {
    BeirDataset source = large();
    Files.createDirectories(tmp.resolve("qrels"));
    Files.writeString(tmp.resolve("corpus.jsonl"), "");
    Files.writeString(tmp.resolve("queries.jsonl"), "");
    Files.writeString(tmp.resolve("qrels/test.tsv"), "");
    Path out = tmp.resolve("nano");
    var summary = new NanoSetBuilder().build(source, 7, out);
    assertThat(summary.queries()).isEqualTo(200);
    assertThat(summary.positives()).isEqualTo(200);
    assertThat(summary.hardNegativeCount()).isEqualTo(400);
    assertThat(summary.documents()).isEqualTo(10_000);

    BeirDataset nano = BeirDatasetReader.read(out);
    assertThat(nano.corpus()).hasSize(10_000);
    assertThat(nano.evaluatedQueryIds()).hasSize(200);
    // "Query 0" and "query 0" are one query after normalisation: at most one of q0 and q1 is kept.
    assertThat(
            nano.queries().keySet().stream()
                .filter(id -> id.equals("q0") || id.equals("q1"))
                .count())
        .isLessThanOrEqualTo(1);
    // Every kept query's positive is in the corpus.
    for (String query : nano.evaluatedQueryIds()) {
      assertThat(nano.qrels().relevantCount(query)).isEqualTo(1);
    }
    assertThat(Files.readString(out.resolve("nano.json")))
        .contains("\"seed\" : 7")
        .contains("round-robin");
    // The same seed builds the same set.
    Path again = tmp.resolve("again");
    new NanoSetBuilder().build(source, 7, again);
    assertThat(Files.readString(again.resolve("queries.jsonl")))
        .isEqualTo(Files.readString(out.resolve("queries.jsonl")));
  }

  /**
   * Three queries: two with 6,000 hard negatives each, one with two. The corpus cap (10,000) cuts
   * the negatives, so their order decides which are kept: round r takes the r-th negative of every
   * query that has one, in the order the queries were drawn.
   */
  @Test
  void hardNegativesAreTakenRoundRobinAcrossQueriesInDrawnOrderUpToTheCap() throws Exception {
    List<CorpusDocument> corpus = new ArrayList<>();
    Map<String, Map<String, Integer>> qrels = new LinkedHashMap<>();
    Map<String, String> queries = new LinkedHashMap<>();
    int[] negativeCounts = {6_000, 2, 6_000};
    for (int q = 0; q < 3; q++) {
      String query = "q" + q;
      queries.put(query, "query " + q);
      Map<String, Integer> judged = new LinkedHashMap<>();
      judged.put(query + "-pos", 1);
      corpus.add(new CorpusDocument(query + "-pos", "", "positive " + query));
      for (int n = 0; n < negativeCounts[q]; n++) {
        judged.put(query + "-neg" + n, 0);
        corpus.add(new CorpusDocument(query + "-neg" + n, "", "negative " + query + " " + n));
      }
      qrels.put(query, judged);
    }
    corpus.add(new CorpusDocument("filler", "", "never needed"));
    Files.createDirectories(tmp.resolve("qrels"));
    Files.writeString(tmp.resolve("corpus.jsonl"), "");
    Files.writeString(tmp.resolve("queries.jsonl"), "");
    Files.writeString(tmp.resolve("qrels/test.tsv"), "");
    BeirDataset source =
        new BeirDataset(
            "three",
            tmp,
            dev.tenbin.scoring.beir.Corpus.of(corpus),
            queries,
            Qrels.of(qrels),
            dev.tenbin.scoring.beir.SpanQrels.none(),
            new ArrayList<>(queries.keySet()),
            List.of());

    Path out = tmp.resolve("nano-three");
    var summary = new NanoSetBuilder().build(source, 11, out);

    BeirDataset nano = BeirDatasetReader.read(out);
    List<String> drawn = new ArrayList<>(nano.queries().keySet());
    assertThat(drawn).containsExactlyInAnyOrder("q0", "q1", "q2");
    List<String> expected = new ArrayList<>();
    drawn.forEach(query -> expected.add(query + "-pos"));
    for (int round = 0; expected.size() < NanoSetBuilder.MAX_DOCUMENTS; round++) {
      for (String query : drawn) {
        if (round < negativeCounts[Integer.parseInt(query.substring(1))]
            && expected.size() < NanoSetBuilder.MAX_DOCUMENTS) {
          expected.add(query + "-neg" + round);
        }
      }
    }
    assertThat(nano.corpus()).extracting(CorpusDocument::id).containsExactlyElementsOf(expected);
    assertThat(summary.positives()).isEqualTo(3);
    assertThat(summary.hardNegativeCount()).isEqualTo(9_997);
    assertThat(summary.filler()).isZero();
    // Round-robin keeps both negatives of q1 and splits the rest evenly between q0 and q2.
    assertThat(nano.corpus())
        .extracting(CorpusDocument::id)
        .contains("q1-neg0", "q1-neg1", "q0-neg4996", "q2-neg4996")
        .doesNotContain("q0-neg4998", "q2-neg4998");
  }
}
