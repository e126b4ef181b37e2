package dev.tenbin.eval.positions;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import dev.tenbin.core.InvalidInputException;
import dev.tenbin.model.tokenizer.LengthTokenizer;
import dev.tenbin.scoring.beir.AnswerSpan;
import dev.tenbin.scoring.beir.BeirDataset;
import dev.tenbin.scoring.beir.CorpusDocument;
import dev.tenbin.scoring.beir.SpanQrels;
import dev.tenbin.scoring.metrics.Qrels;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Queries go to the bucket of their document's length and the bin of their span's centre. */
class PositionAnalyzerTest {
  /** Documents "short" (100 tokens), "mid" (700), "edge" (512), "huge" (5000). */
  private static final DocumentLengths LENGTHS =
      new DocumentLengths(
          "task", Map.of("short", 100, "mid", 700, "edge", 512, "huge", 5000, "big", 2049));

  @Test
  void bucketsAreClosedAboveAndTheLastIsOpen() {
    assertThat(PositionAnalyzer.bucket(0)).isZero();
    assertThat(PositionAnalyzer.bucket(512)).isZero();
    assertThat(PositionAnalyzer.bucket(513)).isEqualTo(1);
    assertThat(PositionAnalyzer.bucket(1024)).isEqualTo(1);
    assertThat(PositionAnalyzer.bucket(1025)).isEqualTo(2);
    assertThat(PositionAnalyzer.bucket(2048)).isEqualTo(3);
    assertThat(PositionAnalyzer.bucket(2049)).isEqualTo(4);
    assertThat(PositionAnalyzer.bucket(90_000)).isEqualTo(4);
  }

  @Test
  void binMeansAreTheMeansOfTheirQueriesAndStatisticsUseBinsWithEnoughQueries() {
    Map<String, AnswerSpan> spans = new LinkedHashMap<>();
    Map<String, Map<String, Double>> metrics = new LinkedHashMap<>();
    List<String> evaluated = new ArrayList<>();
    // Bucket 0: three queries early in "short" (bin 0), two late (bin 19), one in bin 10.
    double[] early = {1.0, 0.5, 0.75};
    for (int i = 0; i < early.length; i++) {
      add(spans, metrics, evaluated, "e" + i, new AnswerSpan("short", 0, 2, 100), early[i], 1.0);
    }
    add(spans, metrics, evaluated, "l0", new AnswerSpan("edge", 99, 100, 100), 0.25, 0.5);
    add(spans, metrics, evaluated, "l1", new AnswerSpan("short", 100, 100, 100), 0.25, 0.0);
    add(spans, metrics, evaluated, "m0", new AnswerSpan("short", 50, 52, 100), 0.9, 1.0);
    // Bucket 4: one query in the open-ended bucket; a query without a span is left out.
    add(spans, metrics, evaluated, "h0", new AnswerSpan("big", 10, 20, 100), 0.3, 1.0);
    evaluated.add("no-span");
    metrics.put("no-span", Map.of("ndcg@10", 0.0, "recall@100", 0.0));

    PositionAnalysis analysis =
        new PositionAnalyzer("tok", LENGTHS, 2).analyse(evaluated, metrics, SpanQrels.of(spans));

    assertThat(analysis.buckets()).hasSize(5);
    PositionBucket first = analysis.buckets().get(0);
    assertThat(first.minTokens()).isZero();
    assertThat(first.maxTokens()).isEqualTo(512);
    assertThat(first.queries()).isEqualTo(6);
    assertThat(first.bins()).hasSize(20);
    assertThat(first.bins().get(0).queries()).isEqualTo(3);
    assertThat(first.bins().get(0).ndcgAt10()).isCloseTo(0.75, within(1e-15));
    assertThat(first.bins().get(0).recallAt100()).isEqualTo(1.0);
    assertThat(first.bins().get(19).queries()).isEqualTo(2);
    assertThat(first.bins().get(19).recallAt100()).isEqualTo(0.25);
    assertThat(first.bins().get(10).queries()).isEqualTo(1);
    assertThat(first.bins().get(5)).isEqualTo(new PositionBin(5, 0, null, null));
    // min_count 2: bins 0 and 19 qualify, bin 10 (one query) does not.
    double[] means = {0.75, 0.25};
    assertThat(first.psi())
        .isEqualTo(PositionStatistics.psi(means))
        .isCloseTo(2.0 / 3, within(1e-12));
    assertThat(first.slope())
        .isEqualTo(PositionStatistics.slope(new double[] {0.025, 0.975}, means));
    assertThat(first.pearson()).isEqualTo(-1.0);
    PositionBucket open = analysis.buckets().get(4);
    assertThat(open.minTokens()).isEqualTo(2048);
    assertThat(open.maxTokens()).isNull();
    assertThat(open.queries()).isEqualTo(1);
    assertThat(open.psi()).as("fewer than two qualifying bins").isNull();
    assertThat(analysis.buckets().get(1).queries()).isZero();
    assertThat(analysis.lengthReference()).isEqualTo("task");
    assertThat(analysis.minCount()).isEqualTo(2);
  }

  @Test
  void theReferenceCorrelationComparesProfilesOverBinsBothCount() {
    PositionAnalysis falling = analysisOf(new double[] {0.9, 0.6, 0.3}, new int[] {5, 5, 5});
    PositionAnalysis rising = analysisOf(new double[] {0.2, 0.4, 0.8}, new int[] {5, 5, 5});
    PositionAnalysis sparse = analysisOf(new double[] {0.2, 0.4, 0.8}, new int[] {5, 0, 0});

    assertThat(
            PositionAnalyzer.withReference(falling, "bm25", falling)
                .buckets()
                .get(0)
                .referencePearson())
        .isCloseTo(1.0, within(1e-12));
    PositionAnalysis against = PositionAnalyzer.withReference(falling, "bm25", rising);
    assertThat(against.reference()).isEqualTo("bm25");
    assertThat(against.buckets().get(0).referencePearson()).isNegative();
    assertThat(against.buckets().get(0).psi()).isEqualTo(falling.buckets().get(0).psi());
    assertThat(
            PositionAnalyzer.withReference(falling, "bm25", sparse)
                .buckets()
                .get(0)
                .referencePearson())
        .as("one common bin")
        .isNull();
  }

  @Test
  void borrowedLengthsMustCoverEverySpanDocument() {
    BeirDataset task =
        dataset(
            "de",
            List.of(new CorpusDocument("a", "", "eins zwei")),
            SpanQrels.of(Map.of("q", new AnswerSpan("a", 0, 1, 9))));
    BeirDataset reference =
        dataset("en", List.of(new CorpusDocument("b", "", "x")), SpanQrels.none());
    try (LengthTokenizer tokenizer = LengthTokenizer.open(LengthTokenizer.DEFAULT)) {
      assertThatThrownBy(() -> DocumentLengths.count(task, reference, tokenizer))
          .isInstanceOf(InvalidInputException.class)
          .hasMessageContaining("has no document 'a'");
      BeirDataset sameIds =
          dataset(
              "en", List.of(new CorpusDocument("a", "Title", "one two three")), SpanQrels.none());
      DocumentLengths lengths = DocumentLengths.count(task, sameIds, tokenizer);
      assertThat(lengths.source()).isEqualTo("en");
      assertThat(lengths.of("a")).as("title + \" \" + text, no special tokens").isEqualTo(4);
    }
  }

  @Test
  void theLengthTokenizerIsABuiltInModelOrATokenizerFile() {
    try (LengthTokenizer builtIn = LengthTokenizer.open("bge-small-en-v1.5")) {
      assertThat(builtIn.count("Hello, world!")).isEqualTo(4);
      assertThat(builtIn.count("a ".repeat(3000))).as("no truncation").isEqualTo(3000);
    }
    assertThatThrownBy(() -> LengthTokenizer.open("no-such-model"))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("--length-tokenizer must be a built-in model id");
  }

  private static PositionAnalysis analysisOf(double[] means, int[] counts) {
    List<PositionBin> bins = new ArrayList<>();
    for (int bin = 0; bin < 20; bin++) {
      bins.add(
          bin < means.length && counts[bin] > 0
              ? new PositionBin(bin, counts[bin], means[bin], 1.0)
              : new PositionBin(bin, 0, null, null));
    }
    List<PositionBucket> buckets = new ArrayList<>();
    for (int b = 0; b < 5; b++) {
      buckets.add(
          new PositionBucket(
              b * 512, b == 4 ? null : (b + 1) * 512, 15, bins, 0.5, null, null, null, null, null));
    }
    return new PositionAnalysis("tok", "task", 5, null, buckets);
  }

  private static BeirDataset dataset(String name, List<CorpusDocument> corpus, SpanQrels spans) {
    return new BeirDataset(
        name,
        Path.of(name),
        dev.tenbin.scoring.beir.Corpus.of(corpus),
        Map.of("q", "query"),
        Qrels.of(Map.of("q", Map.of("a", 1))),
        spans,
        List.of("q"),
        List.of());
  }

  private static void add(
      Map<String, AnswerSpan> spans,
      Map<String, Map<String, Double>> metrics,
      List<String> evaluated,
      String id,
      AnswerSpan span,
      double ndcg,
      double recall) {
    spans.put(id, span);
    metrics.put(id, Map.of("ndcg@10", ndcg, "recall@100", recall));
    evaluated.add(id);
  }
}
