package dev.tenbin.eval.parity;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.tenbin.client.encoder.DenseEncoding;
import dev.tenbin.eval.parity.ServingParity.Certificate;
import dev.tenbin.eval.parity.ServingParity.Side;
import dev.tenbin.scoring.beir.BeirDataset;
import dev.tenbin.scoring.beir.CorpusDocument;
import dev.tenbin.scoring.beir.SpanQrels;
import dev.tenbin.scoring.metrics.Qrels;
import dev.tenbin.scoring.metrics.ScoredDoc;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class ServingParityTest {
  private static final int DOCUMENTS = 40;

  /** Document d is about topic d; query q asks about topic q and judges document q relevant. */
  private static BeirDataset data() {
    List<CorpusDocument> corpus = new ArrayList<>();
    Map<String, String> queries = new LinkedHashMap<>();
    Map<String, Map<String, Integer>> qrels = new LinkedHashMap<>();
    List<String> evaluated = new ArrayList<>();
    for (int d = 0; d < DOCUMENTS; d++) {
      corpus.add(new CorpusDocument("d" + d, "", "topic " + d));
      queries.put("q" + d, "topic " + d);
      qrels.put("q" + d, Map.of("d" + d, 1));
      evaluated.add("q" + d);
    }
    return new BeirDataset(
        "topics",
        Path.of("topics"),
        dev.tenbin.scoring.beir.Corpus.of(corpus),
        queries,
        Qrels.of(qrels),
        SpanQrels.none(),
        evaluated,
        List.of());
  }

  /**
   * A vector per text: a one-hot of its topic, plus {@code noise} on the next topic's axis for
   * every text whose topic number is odd (a document role text only), which for noise above 1 sends
   * those documents to the wrong query.
   */
  private static DenseEncoding encoder(double noise, AtomicInteger calls) {
    return (model, texts, query) -> {
      calls.incrementAndGet();
      List<float[]> vectors = new ArrayList<>();
      for (String text : texts) {
        int topic = Integer.parseInt(text.substring(text.lastIndexOf(' ') + 1));
        float[] v = new float[DOCUMENTS];
        v[topic] = 1;
        if (query && topic % 2 == 1) {
          v[(topic + 1) % DOCUMENTS] = (float) noise;
        }
        vectors.add(v);
      }
      return vectors;
    };
  }

  @Test
  void aModelAgainstItselfIsIdenticalWithADeltaOfZero() {
    Certificate same =
        ServingParity.compare(
            data(),
            new Side("a", "m", 8, encoder(0, new AtomicInteger())),
            new Side("b", "m", 3, encoder(0, new AtomicInteger())),
            100,
            1_000,
            1);
    assertThat(same.identical()).isTrue();
    assertThat(same.delta()).isZero();
    assertThat(same.scoreA()).isEqualTo(100.0);
    assertThat(same.test().randomizationP()).isEqualTo(1.0);
    assertThat(same.top10ChangedInOrder()).isZero();
    assertThat(same.documentVectors().minCosine()).isCloseTo(1.0, within(1e-12));
    assertThat(same.documentVectors().maxAbsDifference()).isZero();
  }

  @Test
  void aConditionThatMovesVectorsGetsACertificateSayingByHowMuch() {
    AtomicInteger callsB = new AtomicInteger();
    Certificate moved =
        ServingParity.compare(
            data(),
            new Side("a", "m", 8, encoder(0, new AtomicInteger())),
            new Side("b", "m-q", 7, encoder(2, callsB)),
            100,
            1_000,
            1);
    assertThat(moved.identical()).isFalse();
    // each odd query now leans to the next topic twice as much as to its own: it ranks the next
    // topic's document first and its answer second, so 20 of 40 queries score 1/log2(3), not 1
    double lost = 1 - 1 / (Math.log(3) / Math.log(2));
    assertThat(moved.delta()).isCloseTo(-100 * 20 * lost / DOCUMENTS, within(1e-6));
    assertThat(moved.deltaHigh()).isLessThan(0);
    assertThat(moved.test().randomizationP()).isLessThan(0.001);
    assertThat(moved.top10ChangedInOrder()).isEqualTo(20);
    assertThat(moved.top10ChangedAsSet()).isLessThanOrEqualTo(20);
    // odd queries: cosine of (1, 0) and (1, 2)/sqrt(5); even ones and every document unchanged
    assertThat(moved.queryVectors().minCosine()).isCloseTo(1 / Math.sqrt(5), within(1e-7));
    assertThat(moved.queryVectors().identical()).isEqualTo(20);
    assertThat(moved.documentVectors().identical()).isEqualTo(40);
    assertThat(moved.queryVectors().maxAbsDifference()).isEqualTo(2.0);
    // B's batch of 7: 40 documents in 6 requests and 40 queries in 6
    assertThat(callsB.get()).isEqualTo(12);
    assertThat(moved.b()).isEqualTo("b, model m-q, batch 7");
  }

  @Test
  void searchBreaksTiesByDocumentIdAscending() {
    Map<String, List<ScoredDoc>> run =
        ServingParity.search(
            List.of("q"),
            List.of(new float[] {1, 0}),
            List.of("b", "a", "c"),
            List.of(new float[] {1, 0}, new float[] {2, 0}, new float[] {0, 1}),
            2);
    assertThat(run.get("q")).extracting(ScoredDoc::docId).containsExactly("a", "b");
  }
}
