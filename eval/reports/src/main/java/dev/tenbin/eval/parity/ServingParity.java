package dev.tenbin.eval.parity;

import dev.tenbin.client.encoder.DenseEncoding;
import dev.tenbin.scoring.beir.BeirDataset;
import dev.tenbin.scoring.beir.CorpusDocument;
import dev.tenbin.scoring.metrics.Evaluation;
import dev.tenbin.scoring.metrics.RankingEvaluator;
import dev.tenbin.scoring.metrics.RunOrder;
import dev.tenbin.scoring.metrics.ScoredDoc;
import dev.tenbin.scoring.stats.PairedTest;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A serving-parity certificate: one dense model encoded under two conditions (another endpoint,
 * another ONNX file of the same model, another batch size, ...) and everything else held equal.
 * Both sides encode the corpus (title + " " + text, the document role) and the evaluated queries
 * (query role) in requests of their batch size, search exactly in-process (cosine, FP32 scores,
 * ties by document id ascending, Tenbin's policy) and are scored by trec_eval-exact metrics; so a
 * difference comes from the encoding alone.
 *
 * <p>The certificate holds Δ = B − A of the metric with its paired t interval and both paired tests
 * ({@link PairedTest}), how many queries' top 10 changed (as a set, and in order), and how far the
 * vectors moved: per text the cosine of A's and B's vector, its minimum and mean, the largest
 * absolute difference of one component, and how many vectors are bit-identical.
 */
public final class ServingParity {
  /** The metric the certificate compares. */
  public static final String METRIC = "ndcg@10";

  private ServingParity() {}

  /**
   * One condition.
   *
   * @param label what it is, e.g. "embedded" or "endpoint localhost:50151"
   * @param model the model id it encodes with
   * @param batch texts per encode request
   * @param encoding how it encodes
   */
  public record Side(String label, String model, int batch, DenseEncoding encoding) {
    public Side {
      if (batch < 1) {
        throw new IllegalArgumentException("batch must be 1 or more, got " + batch);
      }
    }

    /** "label, model M, batch N". */
    public String describe() {
      return label + ", model " + model + ", batch " + batch;
    }
  }

  /**
   * How far one side's vectors are from the other's, text by text.
   *
   * @param vectors texts compared
   * @param minCosine the smallest cosine of a text's two vectors
   * @param meanCosine their mean
   * @param maxAbsDifference the largest |a_i − b_i| over every component of every text
   * @param identical texts whose two vectors are bit-identical
   */
  public record VectorAgreement(
      int vectors, double minCosine, double meanCosine, double maxAbsDifference, int identical) {}

  /**
   * The certificate.
   *
   * @param dataset the collection's name
   * @param queries evaluated queries
   * @param documents documents in the corpus
   * @param a condition A, described
   * @param b condition B, described
   * @param scoreA A's metric × 100
   * @param scoreB B's metric × 100
   * @param test B against A, per query (Δ and its interval × 100 in {@link #delta} and {@link
   *     #deltaLow}/{@link #deltaHigh})
   * @param delta mean(B − A) × 100
   * @param deltaLow the 95% t interval's low end × 100
   * @param deltaHigh its high end × 100
   * @param top10ChangedAsSet queries whose top-10 documents differ as a set
   * @param top10ChangedInOrder queries whose top 10 differ in documents or order
   * @param documentVectors agreement of the document vectors
   * @param queryVectors agreement of the query vectors
   */
  public record Certificate(
      String dataset,
      int queries,
      int documents,
      String a,
      String b,
      double scoreA,
      double scoreB,
      PairedTest test,
      double delta,
      double deltaLow,
      double deltaHigh,
      int top10ChangedAsSet,
      int top10ChangedInOrder,
      VectorAgreement documentVectors,
      VectorAgreement queryVectors) {

    /** Whether A and B gave the same vectors, bit for bit. */
    public boolean identical() {
      return documentVectors.identical() == documentVectors.vectors()
          && queryVectors.identical() == queryVectors.vectors();
    }
  }

  /**
   * Encodes, searches and scores {@code data} under both conditions and compares them.
   *
   * @param topK the depth of each ranking
   * @param permutations randomization draws of the paired test beyond its exact limit
   * @param seed their seed
   */
  public static Certificate compare(
      BeirDataset data, Side a, Side b, int topK, int permutations, long seed) {
    List<String> documentTexts = data.corpus().stream().map(CorpusDocument::titleAndText).toList();
    List<String> queryIds = data.evaluatedQueryIds();
    List<String> queryTexts = queryIds.stream().map(id -> data.queries().get(id)).toList();
    List<float[]> documentsA = encode(a, documentTexts, false);
    List<float[]> documentsB = encode(b, documentTexts, false);
    List<float[]> queriesA = encode(a, queryTexts, true);
    List<float[]> queriesB = encode(b, queryTexts, true);
    List<String> documentIds = data.corpus().stream().map(CorpusDocument::id).toList();
    Map<String, List<ScoredDoc>> runA = search(queryIds, queriesA, documentIds, documentsA, topK);
    Map<String, List<ScoredDoc>> runB = search(queryIds, queriesB, documentIds, documentsB, topK);
    RankingEvaluator evaluator = RankingEvaluator.standard();
    Evaluation evaluationA = evaluator.evaluate(data.qrels(), runA, queryIds, RunOrder.AS_GIVEN);
    Evaluation evaluationB = evaluator.evaluate(data.qrels(), runB, queryIds, RunOrder.AS_GIVEN);
    List<String> measured = List.copyOf(evaluationA.perQuery().keySet());
    double[] valuesA =
        measured.stream().mapToDouble(q -> evaluationA.perQuery().get(q).get(METRIC)).toArray();
    double[] valuesB =
        measured.stream().mapToDouble(q -> evaluationB.perQuery().get(q).get(METRIC)).toArray();
    PairedTest test = PairedTest.of(valuesB, valuesA, 0.95, permutations, seed);
    int asSet = 0;
    int inOrder = 0;
    for (String query : queryIds) {
      List<String> topA = top10(runA.get(query));
      List<String> topB = top10(runB.get(query));
      if (!topA.equals(topB)) {
        inOrder++;
      }
      if (!new java.util.HashSet<>(topA).equals(new java.util.HashSet<>(topB))) {
        asSet++;
      }
    }
    return new Certificate(
        data.name(),
        measured.size(),
        documentIds.size(),
        a.describe(),
        b.describe(),
        100 * evaluationA.means().get(METRIC),
        100 * evaluationB.means().get(METRIC),
        test,
        100 * test.meanDifference(),
        100 * test.differenceInterval().low(),
        100 * test.differenceInterval().high(),
        asSet,
        inOrder,
        agreement(documentsA, documentsB),
        agreement(queriesA, queriesB));
  }

  private static List<float[]> encode(Side side, List<String> texts, boolean query) {
    List<float[]> vectors = new ArrayList<>(texts.size());
    for (int from = 0; from < texts.size(); from += side.batch()) {
      List<String> batch = texts.subList(from, Math.min(texts.size(), from + side.batch()));
      List<float[]> encoded = side.encoding().encodeDense(side.model(), batch, query);
      if (encoded.size() != batch.size()) {
        throw new IllegalStateException(
            side.label()
                + " returned "
                + encoded.size()
                + " vectors for "
                + batch.size()
                + " texts");
      }
      vectors.addAll(encoded);
    }
    return vectors;
  }

  /**
   * Exact cosine search: every document scored by the dot product of the L2-normalised vectors,
   * summed in double and kept as an FP32 score; ties by document id ascending.
   */
  static Map<String, List<ScoredDoc>> search(
      List<String> queryIds,
      List<float[]> queries,
      List<String> documentIds,
      List<float[]> documents,
      int topK) {
    List<float[]> normalised = documents.stream().map(ServingParity::normalise).toList();
    Map<String, List<ScoredDoc>> run = new LinkedHashMap<>();
    for (int q = 0; q < queryIds.size(); q++) {
      float[] query = normalise(queries.get(q));
      List<ScoredDoc> scored = new ArrayList<>(documentIds.size());
      for (int d = 0; d < documentIds.size(); d++) {
        float[] document = normalised.get(d);
        if (document.length != query.length) {
          throw new IllegalStateException(
              "a query vector has " + query.length + " dimensions, a document " + document.length);
        }
        double dot = 0;
        for (int i = 0; i < query.length; i++) {
          dot += (double) query[i] * document[i];
        }
        scored.add(new ScoredDoc(documentIds.get(d), (float) dot));
      }
      scored.sort(
          Comparator.comparingDouble(ScoredDoc::score).reversed().thenComparing(ScoredDoc::docId));
      run.put(queryIds.get(q), List.copyOf(scored.subList(0, Math.min(topK, scored.size()))));
    }
    return run;
  }

  private static float[] normalise(float[] vector) {
    double norm = 0;
    for (float v : vector) {
      norm += (double) v * v;
    }
    double length = Math.sqrt(norm);
    float[] out = new float[vector.length];
    for (int i = 0; i < vector.length; i++) {
      out[i] = length == 0 ? 0 : (float) (vector[i] / length);
    }
    return out;
  }

  private static List<String> top10(List<ScoredDoc> ranking) {
    List<ScoredDoc> docs = ranking == null ? List.of() : ranking;
    return docs.subList(0, Math.min(10, docs.size())).stream().map(ScoredDoc::docId).toList();
  }

  static VectorAgreement agreement(List<float[]> a, List<float[]> b) {
    double min = Double.POSITIVE_INFINITY;
    double sum = 0;
    double maxAbs = 0;
    int identical = 0;
    for (int t = 0; t < a.size(); t++) {
      float[] x = a.get(t);
      float[] y = b.get(t);
      if (java.util.Arrays.equals(x, y)) {
        identical++;
      }
      if (x.length != y.length) {
        min = Double.NaN;
        continue;
      }
      double dot = 0;
      double xx = 0;
      double yy = 0;
      for (int i = 0; i < x.length; i++) {
        dot += (double) x[i] * y[i];
        xx += (double) x[i] * x[i];
        yy += (double) y[i] * y[i];
        maxAbs = Math.max(maxAbs, Math.abs((double) x[i] - y[i]));
      }
      double cosine = xx == 0 || yy == 0 ? 0 : dot / Math.sqrt(xx * yy);
      min = Math.min(min, cosine);
      sum += cosine;
    }
    return new VectorAgreement(
        a.size(),
        a.isEmpty() ? Double.NaN : min,
        a.isEmpty() ? Double.NaN : sum / a.size(),
        maxAbs,
        identical);
  }
}
