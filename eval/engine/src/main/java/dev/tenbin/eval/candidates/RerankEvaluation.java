package dev.tenbin.eval.candidates;

import dev.tenbin.client.rerank.RerankClient;
import dev.tenbin.eval.result.CellResult;
import dev.tenbin.eval.result.RankingMode;
import dev.tenbin.eval.result.RunDiagnostics;
import dev.tenbin.eval.result.Timing;
import dev.tenbin.eval.result.Timings;
import dev.tenbin.proto.common.v1.ScoredDocument;
import dev.tenbin.proto.rerank.v1.RerankRequest;
import dev.tenbin.scoring.beir.BeirDataset;
import dev.tenbin.scoring.beir.CorpusDocument;
import dev.tenbin.scoring.beir.DatasetException;
import dev.tenbin.scoring.beir.DatasetFingerprint;
import dev.tenbin.scoring.metrics.Evaluation;
import dev.tenbin.scoring.metrics.RankingEvaluator;
import dev.tenbin.scoring.metrics.RunOrder;
import dev.tenbin.scoring.metrics.ScoredDoc;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A reranker judged on a fixed candidate set: each query's stored candidates (top-100 plus any
 * safeguard positive) are re-ordered through the rerank service; metrics are reported with the
 * safeguard positive ({@code rerank}) and with it removed ({@code rerank_without_safeguard}), with
 * the set's query coverage and relevant-document coverage as diagnostics.
 */
public final class RerankEvaluation {
  private final RerankClient reranker;

  public RerankEvaluation(RerankClient reranker) {
    this.reranker = reranker;
  }

  public List<CellResult> run(BeirDataset dataset, CandidateSet set, String model) {
    String fingerprint = DatasetFingerprint.of(dataset.directory(), dataset.split());
    if (!fingerprint.equals(set.header().path("dataset_sha256").asText())) {
      throw new DatasetException(
          "the candidate set was built from other files than "
              + dataset.directory()
              + "; rebuild it with tenbin candidates build");
    }
    // Only the candidates' documents are read (one walk of the corpus).
    java.util.Set<String> candidateIds = new java.util.HashSet<>();
    for (QueryCandidates query : set.queries()) {
      query.top().forEach(candidate -> candidateIds.add(candidate.docId()));
      if (query.safeguard() != null) {
        candidateIds.add(query.safeguard().docId());
      }
    }
    Map<String, CorpusDocument> corpus = dataset.corpus().documents(candidateIds);
    Map<String, QueryCandidates> byQuery = new HashMap<>();
    for (QueryCandidates query : set.queries()) {
      byQuery.put(query.queryId(), query);
    }
    RerankClient rerank = reranker.withDeadline(Duration.ofMinutes(10));
    Map<String, List<ScoredDoc>> withSafeguard = new LinkedHashMap<>();
    Map<String, List<ScoredDoc>> withoutSafeguard = new LinkedHashMap<>();
    int covered = 0;
    long relevantInTop = 0;
    long relevantTotal = 0;
    long safeguards = 0;
    long start = System.nanoTime();
    for (String queryId : dataset.evaluatedQueryIds()) {
      QueryCandidates candidates = byQuery.get(queryId);
      if (candidates == null) {
        throw new DatasetException(
            "the candidate set has no entry for query " + queryId + "; rebuild it");
      }
      int positives = 0;
      for (Candidate candidate : candidates.top()) {
        positives += dataset.qrels().grade(queryId, candidate.docId()) > 0 ? 1 : 0;
      }
      covered += positives > 0 ? 1 : 0;
      relevantInTop += positives;
      relevantTotal += dataset.qrels().relevantCount(queryId);
      List<Candidate> all = new ArrayList<>(candidates.top());
      if (candidates.safeguard() != null) {
        all.add(candidates.safeguard());
        safeguards++;
      }
      RerankRequest.Builder request =
          RerankRequest.newBuilder().setModelId(model).setQuery(dataset.queries().get(queryId));
      for (Candidate candidate : all) {
        CorpusDocument doc = corpus.get(candidate.docId());
        String text = doc == null ? "" : doc.titleAndText();
        request.addCandidates(
            dev.tenbin.proto.rerank.v1.Candidate.newBuilder()
                .setDocId(candidate.docId())
                .setText(text.isBlank() ? "(empty)" : text));
      }
      List<ScoredDoc> ranked = new ArrayList<>();
      for (ScoredDocument doc : rerank.rerank(request.build()).getDocumentsList()) {
        ranked.add(new ScoredDoc(doc.getDocId(), doc.getScore()));
      }
      withSafeguard.put(queryId, ranked);
      String safeguardId = candidates.safeguard() == null ? null : candidates.safeguard().docId();
      withoutSafeguard.put(
          queryId, ranked.stream().filter(d -> !d.docId().equals(safeguardId)).toList());
    }
    long rerankNanos = System.nanoTime() - start;
    int queries = dataset.evaluatedQueryIds().size();
    RunDiagnostics diagnostics =
        RunDiagnostics.builder()
            .candidateSet(set.kind(), set.header().path("dense_model").asText("bm25"))
            .coverage(
                (double) covered / queries,
                relevantTotal == 0 ? 0.0 : (double) relevantInTop / relevantTotal,
                safeguards)
            .build();
    Map<Timing, Double> measured = new java.util.EnumMap<>(Timing.class);
    measured.put(Timing.RERANK_MS, rerankNanos / 1e6);
    measured.put(Timing.PER_QUERY_RERANK_US, rerankNanos / 1e3 / queries);
    Timings timings = Timings.of(measured);
    return List.of(
        evalRun(
            dataset, model, set.kind(), RankingMode.RERANK, withSafeguard, timings, diagnostics),
        evalRun(
            dataset,
            model,
            set.kind(),
            RankingMode.RERANK_WITHOUT_SAFEGUARD,
            withoutSafeguard,
            timings,
            diagnostics));
  }

  private static CellResult evalRun(
      BeirDataset dataset,
      String model,
      String kind,
      RankingMode mode,
      Map<String, List<ScoredDoc>> rankings,
      Timings timings,
      RunDiagnostics diagnostics) {
    Evaluation evaluation =
        RankingEvaluator.standard()
            .evaluate(dataset.qrels(), rankings, dataset.evaluatedQueryIds(), RunOrder.AS_GIVEN);
    return new CellResult(
        model,
        "candidates_" + kind,
        mode,
        evaluation.numQueries(),
        evaluation.means(),
        evaluation.tieAware(),
        evaluation.perQuery(),
        rankings,
        timings,
        diagnostics);
  }
}
