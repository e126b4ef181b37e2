package dev.tenbin.eval.positions;

import dev.tenbin.scoring.beir.AnswerSpan;
import dev.tenbin.scoring.beir.SpanQrels;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The PosIR position analysis of one run: each evaluated query with a span goes to the length
 * bucket of its span document ({@code [0, 512], (512, 1024], (1024, 1536], (1536, 2048], > 2048}
 * tokens) and to the bin of its span's relative position ({@link AnswerSpan#positionBin()}); per
 * bin the mean nDCG@10 and recall@100, per bucket the {@link PositionStatistics} of nDCG@10 over
 * the bins with at least {@code minCount} queries. Queries without a span are left out. Means are
 * summed in the order of the evaluated queries, so the same run gives the same bytes.
 */
public final class PositionAnalyzer {
  static final String NDCG = "ndcg@10";
  static final String RECALL = "recall@100";

  private final String tokenizer;
  private final DocumentLengths lengths;
  private final int minCount;

  /**
   * @param tokenizer the name of the tokenizer that counted {@code lengths}
   * @param lengths the span documents' token counts
   * @param minCount bins with fewer queries are left out of the statistics (at least 1)
   */
  public PositionAnalyzer(String tokenizer, DocumentLengths lengths, int minCount) {
    if (minCount < 1) {
      throw new dev.tenbin.core.InvalidInputException(
          "min_count", "min_count must be at least 1, got " + minCount);
    }
    this.tokenizer = tokenizer;
    this.lengths = lengths;
    this.minCount = minCount;
  }

  /** The bucket of a document of {@code tokens} tokens: 0..4. */
  public static int bucket(int tokens) {
    if (tokens <= PositionAnalysis.BUCKET_TOKENS) {
      return 0;
    }
    return Math.min(PositionAnalysis.BUCKETS - 1, (tokens - 1) / PositionAnalysis.BUCKET_TOKENS);
  }

  /**
   * The analysis of a run whose per-query metrics are {@code perQuery} (query id to metric name to
   * value; "ndcg@10" and "recall@100" are read, a query absent from it counts 0 for both).
   */
  public PositionAnalysis analyse(
      List<String> evaluatedQueryIds, Map<String, Map<String, Double>> perQuery, SpanQrels spans) {
    int bins = AnswerSpan.POSITION_BINS;
    int[][] counts = new int[PositionAnalysis.BUCKETS][bins];
    double[][] ndcg = new double[PositionAnalysis.BUCKETS][bins];
    double[][] recall = new double[PositionAnalysis.BUCKETS][bins];
    for (String queryId : evaluatedQueryIds) {
      AnswerSpan span = spans.span(queryId).orElse(null);
      if (span == null) {
        continue;
      }
      int bucket = bucket(lengths.of(span.documentId()));
      int bin = span.positionBin();
      Map<String, Double> metrics = perQuery.getOrDefault(queryId, Map.of());
      counts[bucket][bin]++;
      ndcg[bucket][bin] += metrics.getOrDefault(NDCG, 0.0);
      recall[bucket][bin] += metrics.getOrDefault(RECALL, 0.0);
    }
    List<PositionBucket> buckets = new ArrayList<>();
    for (int b = 0; b < PositionAnalysis.BUCKETS; b++) {
      List<PositionBin> rows = new ArrayList<>(bins);
      int queries = 0;
      for (int bin = 0; bin < bins; bin++) {
        int n = counts[b][bin];
        queries += n;
        rows.add(
            n == 0
                ? new PositionBin(bin, 0, null, null)
                : new PositionBin(bin, n, ndcg[b][bin] / n, recall[b][bin] / n));
      }
      buckets.add(bucket(b, queries, rows, null));
    }
    return new PositionAnalysis(tokenizer, lengths.source(), minCount, null, buckets);
  }

  private PositionBucket bucket(
      int index, int queries, List<PositionBin> rows, Double referencePearson) {
    List<PositionBin> kept = rows.stream().filter(row -> row.queries() >= minCount).toList();
    double[] index0 = new double[kept.size()];
    double[] centres = new double[kept.size()];
    double[] means = new double[kept.size()];
    for (int i = 0; i < kept.size(); i++) {
      index0[i] = kept.get(i).bin();
      centres[i] = PositionStatistics.binCentre(kept.get(i).bin(), AnswerSpan.POSITION_BINS);
      means[i] = kept.get(i).ndcgAt10();
    }
    boolean last = index == PositionAnalysis.BUCKETS - 1;
    return new PositionBucket(
        index * PositionAnalysis.BUCKET_TOKENS,
        last ? null : (index + 1) * PositionAnalysis.BUCKET_TOKENS,
        queries,
        rows,
        PositionStatistics.psi(means),
        PositionStatistics.slope(centres, means),
        PositionStatistics.pearson(index0, means),
        PositionStatistics.spearman(index0, means),
        PositionStatistics.kendall(index0, means),
        referencePearson);
  }

  /**
   * {@code analysis} with each bucket's {@code reference_pearson}: the Pearson correlation of its
   * nDCG@10 bin profile with {@code reference}'s over the bins where both have at least {@code
   * min_count} queries (null where fewer than two such bins, or a profile is constant).
   */
  public static PositionAnalysis withReference(
      PositionAnalysis analysis, String referenceName, PositionAnalysis reference) {
    List<PositionBucket> buckets = new ArrayList<>();
    for (int b = 0; b < analysis.buckets().size(); b++) {
      PositionBucket own = analysis.buckets().get(b);
      PositionBucket theirs = reference.buckets().get(b);
      List<Double> x = new ArrayList<>();
      List<Double> y = new ArrayList<>();
      for (int bin = 0; bin < own.bins().size(); bin++) {
        PositionBin a = own.bins().get(bin);
        PositionBin r = theirs.bins().get(bin);
        if (a.queries() >= analysis.minCount() && r.queries() >= analysis.minCount()) {
          x.add(a.ndcgAt10());
          y.add(r.ndcgAt10());
        }
      }
      buckets.add(
          new PositionBucket(
              own.minTokens(),
              own.maxTokens(),
              own.queries(),
              own.bins(),
              own.psi(),
              own.slope(),
              own.pearson(),
              own.spearman(),
              own.kendall(),
              PositionStatistics.pearson(
                  x.stream().mapToDouble(Double::doubleValue).toArray(),
                  y.stream().mapToDouble(Double::doubleValue).toArray())));
    }
    return new PositionAnalysis(
        analysis.tokenizer(),
        analysis.lengthReference(),
        analysis.minCount(),
        referenceName,
        buckets);
  }
}
