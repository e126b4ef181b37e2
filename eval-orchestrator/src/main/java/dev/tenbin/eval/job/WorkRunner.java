package dev.tenbin.eval.job;

import dev.tenbin.eval.DenseSimilarities;
import dev.tenbin.eval.EvalRun;
import dev.tenbin.eval.RunScorer;
import dev.tenbin.eval.candidates.CandidateSet;
import dev.tenbin.eval.candidates.CandidateSetBuilder;
import dev.tenbin.eval.candidates.RerankEvaluation;
import dev.tenbin.eval.dataset.BeirDataset;
import dev.tenbin.eval.metrics.ScoredDoc;
import dev.tenbin.eval.retrieval.Bm25Retrieval;
import dev.tenbin.eval.retrieval.DenseRetrieval;
import dev.tenbin.eval.retrieval.DenseVariant;
import dev.tenbin.eval.retrieval.EncodeProgress;
import dev.tenbin.eval.retrieval.Fusion;
import dev.tenbin.eval.retrieval.MultiVectorRetrieval;
import dev.tenbin.eval.retrieval.RetrievalResult;
import dev.tenbin.eval.retrieval.SparseRetrieval;
import dev.tenbin.eval.retrieval.SparseVariant;
import dev.tenbin.eval.services.Services;
import dev.tenbin.eval.store.CellRecord;
import dev.tenbin.proto.common.v1.Similarity;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Runs one work item through the services and turns its runs into cell records. Only the cells
 * still missing are returned (a dense model encodes and indexes once and searches only the
 * missing variants).
 */
public final class WorkRunner {
  private final Services services;
  private final JobSpec spec;
  private final Path candidatesDirectory;
  private final EncodeProgress progress;
  private final RetrievalHooks cache;

  /**
   * What the job adds around the retrieval classes: an embedding cache (identity when there is
   * none) and the preparation of LightRetriever's token-embedding cache on an embedded encoder.
   */
  public interface RetrievalHooks {
    RetrievalHooks NONE = new RetrievalHooks() {};

    /** Makes sure the encoder can answer LightRetriever queries for {@code model}. */
    default void prepareLightCache(String model, EncodeProgress progress) {}

    default DenseRetrieval dense(DenseRetrieval retrieval) {
      return retrieval;
    }

    default SparseRetrieval sparse(SparseRetrieval retrieval) {
      return retrieval;
    }

    default MultiVectorRetrieval multiVector(MultiVectorRetrieval retrieval) {
      return retrieval;
    }

    default CandidateSetBuilder candidates(CandidateSetBuilder builder) {
      return builder;
    }
  }

  public WorkRunner(Services services, JobSpec spec, Path candidatesDirectory, EncodeProgress progress, RetrievalHooks cache) {
    this.services = services;
    this.spec = spec;
    this.candidatesDirectory = candidatesDirectory;
    this.progress = progress;
    this.cache = cache;
  }

  /** The candidate set file of a fingerprint. */
  public static Path candidateFile(Path candidatesDirectory, String fingerprint) {
    return candidatesDirectory.resolve(fingerprint + ".jsonl");
  }

  /** Runs {@code work}; returns records for the cells whose fingerprints are in {@code missing}. */
  public List<CellRecord> run(Work work, Set<String> missing) {
    BeirDataset data = work.task().data();
    int topK = spec.topK();
    Map<String, EvalRun> runs = new LinkedHashMap<>();
    switch (work.kind()) {
      case BM25 -> {
        RetrievalResult result = new Bm25Retrieval(services.indexChannel()).run(data, work.task().language(), topK);
        runs.put(work.cells().getFirst().fingerprint(), RunScorer.score(data, "bm25", "base", "retrieval", result));
      }
      case DENSE -> {
        List<DenseVariant> variants = new ArrayList<>();
        for (PlannedCell cell : work.cells()) {
          if (missing.contains(cell.fingerprint())) {
            variants.add(DenseVariant.parse(cell.key().variant()));
          }
        }
        Map<String, EvalRun> best = denseRuns(data, work.model(), DenseRetrieval.QueryEncoding.FULL, variants, "dense:" + work.model());
        for (PlannedCell cell : work.cells()) {
          if (best.containsKey(cell.key().variant())) {
            runs.put(cell.fingerprint(), best.get(cell.key().variant()));
          }
        }
      }
      case LIGHT -> light(work, runs);
      case SPARSE, SPARSE_BM25 -> {
        List<SparseVariant> variants = new ArrayList<>();
        for (PlannedCell cell : work.cells()) {
          if (missing.contains(cell.fingerprint())) {
            variants.addAll(SparseVariant.parse(cell.key().variant()));
          }
        }
        boolean bm25Weights = work.kind() == Work.Kind.SPARSE_BM25;
        Map<String, RetrievalResult> results =
            cache.sparse(new SparseRetrieval(services.indexChannel(), services.encoderChannel()))
                .run(data, work.model(), bm25Weights, topK, variants);
        for (PlannedCell cell : work.cells()) {
          RetrievalResult result = results.get(cell.key().variant());
          if (result != null) {
            runs.put(cell.fingerprint(), RunScorer.score(data, cell.key().system(), cell.key().variant(), "retrieval", result));
          }
        }
      }
      case MULTIVECTOR -> {
        RetrievalResult result =
            cache.multiVector(new MultiVectorRetrieval(services.indexChannel(), services.encoderChannel())).run(data, work.model(), topK);
        runs.put(work.cells().getFirst().fingerprint(), RunScorer.score(data, "multivector:" + work.model(), "base", "retrieval", result));
      }
      case CANDIDATES -> {
        List<CandidateSet> sets =
            cache.candidates(new CandidateSetBuilder(services.indexChannel(), services.encoderChannel(), progress))
                .build(data, work.task().language(), work.model());
        for (int i = 0; i < spec.candidateSets().size(); i++) {
          String kind = spec.candidateSets().get(i);
          for (CandidateSet set : sets) {
            if (set.kind().equals(kind)) {
              set.write(candidateFile(candidatesDirectory, work.artifacts().get(i)));
            }
          }
        }
        return List.of();
      }
      case RERANK -> {
        CandidateSet set = CandidateSet.read(candidateFile(candidatesDirectory, work.artifacts().getFirst()));
        List<EvalRun> reranked = new RerankEvaluation(services.rerankChannel()).run(data, set, work.model());
        for (PlannedCell cell : work.cells()) {
          for (EvalRun run : reranked) {
            if (run.mode().equals(cell.key().mode())) {
              runs.put(cell.fingerprint(), run);
            }
          }
        }
      }
    }
    List<CellRecord> records = new ArrayList<>();
    for (PlannedCell cell : work.cells()) {
      EvalRun run = runs.get(cell.fingerprint());
      if (run != null && missing.contains(cell.fingerprint())) {
        records.add(CellRecords.of(cell, run, work.task()));
      }
    }
    return records;
  }

  /** Dense runs per variant name; with similarity "best", per variant the better of cosine and dot by nDCG@10. */
  private Map<String, EvalRun> denseRuns(
      BeirDataset data, String model, DenseRetrieval.QueryEncoding encoding, List<DenseVariant> variants, String name) {
    if (variants.isEmpty()) {
      return Map.of();
    }
    List<Similarity> similarities = DenseSimilarities.parse("similarity", spec.similarity());
    Map<String, RetrievalResult> results =
        cache.dense(new DenseRetrieval(services.indexChannel(), services.encoderChannel(), progress))
            .run(data, model, encoding, similarities, spec.topK(), variants);
    return DenseSimilarities.bestPerVariant(data, name, variants, similarities, results);
  }

  /** The hybrid's latency is its two sides' (queries are encoded and searched both ways). */
  private Map<String, Object> hybridDiagnostics(EvalRun dense, EvalRun sparse) {
    Map<String, Object> diagnostics = new LinkedHashMap<>();
    diagnostics.put("fusion", "min-max normalized, dense weight " + spec.lightHybridDenseWeight());
    for (String latency : List.of("query_encode_latency_us", "search_latency_us")) {
      Double denseValue = dense.timings().get(latency);
      Double sparseValue = sparse.timings().get(latency);
      if (denseValue != null && sparseValue != null) {
        diagnostics.put(latency, denseValue + sparseValue);
      }
    }
    return diagnostics;
  }

  /** LightRetriever: the dense lookup, the token-count sparse side, and their normalized interpolation. */
  private void light(Work work, Map<String, EvalRun> runs) {
    BeirDataset data = work.task().data();
    String model = work.model();
    cache.prepareLightCache(model, progress);
    EvalRun dense = denseRuns(data, model, DenseRetrieval.QueryEncoding.LIGHT, List.of(DenseVariant.BASE), "light:" + model).get("base");
    RetrievalResult sparse =
        cache.sparse(new SparseRetrieval(services.indexChannel(), services.encoderChannel()))
            .run(data, model, true, spec.topK(), List.of(SparseVariant.BASE))
            .get(SparseVariant.BASE.name());
    long start = System.nanoTime();
    Map<String, Map<String, List<ScoredDoc>>> systems = new LinkedHashMap<>();
    systems.put("light-dense", dense.rankings());
    systems.put("light-sparse", sparse.rankings());
    Map<String, List<ScoredDoc>> fused =
        Fusion.linear(
            services.indexChannel(), List.of(spec.lightHybridDenseWeight(), 1 - spec.lightHybridDenseWeight()), spec.topK(), systems);
    long fuseNanos = System.nanoTime() - start;
    EvalRun sparseRun = RunScorer.score(data, "light-sparse:" + model, "base", "retrieval", sparse);
    Map<String, Double> denseTimings = dense.timings();
    RetrievalResult hybrid =
        new RetrievalResult(
            fused,
            (long) (denseTimings.get("index_ms") * 1e6) + sparse.indexNanos(),
            (long) (denseTimings.get("search_ms") * 1e6) + sparse.searchNanos() + fuseNanos,
            data.corpus().size(),
            (long) (denseTimings.get("document_encode_ms") * 1e6) + sparse.documentEncodeNanos(),
            (long) (denseTimings.get("query_encode_ms") * 1e6) + sparse.queryEncodeNanos(),
            hybridDiagnostics(dense, sparseRun));
    EvalRun hybridRun = RunScorer.score(data, "light-hybrid:" + model, "base", "retrieval", hybrid);
    for (PlannedCell cell : work.cells()) {
      switch (cell.key().family()) {
        case "light" -> runs.put(cell.fingerprint(), dense);
        case "light-sparse" -> runs.put(cell.fingerprint(), sparseRun);
        default -> runs.put(cell.fingerprint(), hybridRun);
      }
    }
  }
}
