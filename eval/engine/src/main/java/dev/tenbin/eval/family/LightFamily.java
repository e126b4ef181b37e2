package dev.tenbin.eval.family;

import dev.tenbin.eval.plan.CellIdentity;
import dev.tenbin.eval.plan.JobTask;
import dev.tenbin.eval.plan.ModelFacts;
import dev.tenbin.eval.plan.PlanContext;
import dev.tenbin.eval.plan.PlannedCell;
import dev.tenbin.eval.plan.RetrievalFamily;
import dev.tenbin.eval.plan.RetrieverEntry;
import dev.tenbin.eval.plan.Work;
import dev.tenbin.eval.plan.WorkContext;
import dev.tenbin.eval.result.CellResult;
import dev.tenbin.eval.result.ConcurrentLatency;
import dev.tenbin.eval.result.RankingMode;
import dev.tenbin.eval.result.RunDiagnostics;
import dev.tenbin.eval.result.Timing;
import dev.tenbin.eval.result.Timings;
import dev.tenbin.eval.retrieval.DenseRetrieval;
import dev.tenbin.eval.retrieval.DenseVariant;
import dev.tenbin.eval.retrieval.HybridFusion;
import dev.tenbin.eval.retrieval.RetrievalResult;
import dev.tenbin.eval.retrieval.RunScorer;
import dev.tenbin.eval.retrieval.SparseRetrieval;
import dev.tenbin.eval.retrieval.SparseVariant;
import dev.tenbin.scoring.beir.BeirDataset;
import dev.tenbin.scoring.metrics.ScoredDoc;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * {@code light:MODEL}: LightRetriever. Its cells share two rankings: the dense lookup of query
 * tokens against the model's document vectors ({@code light}, in dense variants), the token-count
 * sparse side ({@code light-sparse}) and their fusion ({@code light-hybrid}): min-max normalized
 * interpolation by default, or RRF ({@code light_hybrid_fusion}).
 */
final class LightFamily implements RetrievalFamily {
  static final String SPARSE_SIDE = "light-sparse";
  static final String HYBRID = "light-hybrid";

  @Override
  public String name() {
    return "light";
  }

  @Override
  public String description() {
    return "LightRetriever: query token lookup against the model's document vectors, its token-count sparse side and"
        + " their hybrid";
  }

  @Override
  public void checkVariant(String field, String variant) {
    DenseVariant.parse(variant);
  }

  @Override
  public List<String> evalVariants(List<String> flags) {
    List<String> variants =
        flags.stream()
            .filter(v -> !SparseFamily.isSparseVariant(v) && !HybridFusion.isFusionVariant(v))
            .toList();
    return variants.isEmpty() ? List.of(DenseVariant.BASE.name()) : variants;
  }

  @Override
  public Work plan(PlanContext planner, JobTask task, RetrieverEntry entry) {
    String model = entry.retriever().model();
    ModelFacts facts = planner.encoderFacts(model);
    List<PlannedCell> cells = new ArrayList<>();
    for (String variant : entry.variants().isEmpty() ? List.of("base") : entry.variants()) {
      cells.add(
          planner.cell(
              task,
              model,
              name(),
              variant,
              RankingMode.RETRIEVAL,
              DenseFamily.withIndexIdentity(
                  lightIdentity(planner.modelIdentity(facts, variant), variant), variant),
              facts.storedVersions(),
              facts.storedFacts(facts.dimension())));
    }
    CellIdentity identity = planner.modelIdentity(facts, "base");
    cells.add(
        planner.cell(
            task,
            model,
            SPARSE_SIDE,
            "base",
            RankingMode.RETRIEVAL,
            identity,
            facts.storedVersions(),
            facts.storedFacts(0)));
    HybridFusion fusion = planner.settings().lightHybrid();
    boolean minMax = fusion.method().equals(HybridFusion.MINMAX);
    // The min-max hybrid keeps the identity and variant it always had (its stored fingerprints).
    CellIdentity hybrid =
        identity.with(
            "hybrid",
            (minMax ? "min-max normalized interpolation" : "reciprocal rank fusion k=" + fusion.k())
                + ", dense weight "
                + planner.settings().lightHybridDenseWeight());
    cells.add(
        planner.cell(
            task,
            model,
            HYBRID,
            minMax ? "base" : planner.settings().lightHybridFusion(),
            RankingMode.RETRIEVAL,
            hybrid,
            facts.storedVersions(),
            facts.storedFacts(facts.dimension())));
    return new Work(this, task, model, cells, List.of(), "");
  }

  /**
   * A truncated variant's queries come from the width-N token table (rows truncated and normalised
   * at N, then averaged), which cells computed before by truncating the full-width mean did not:
   * such cells get an identity of their own.
   */
  private static CellIdentity lightIdentity(CellIdentity identity, String variant) {
    return DenseVariant.parse(variant).truncate() > 0
        ? identity.with("light_query_table", "per-width token table")
        : identity;
  }

  /**
   * The slices of the corpus that are shard {@code shard}'s, encoded into the embedding cache for
   * the shard that runs {@code work}: every cell ranks with the model's document vectors (the
   * sparse side's hybrid through the base variant), encoded and cached slice by slice as a dense
   * work item's are ({@link DenseFamily#encodeShare}).
   */
  @Override
  public String encodeShare(
      WorkContext runner, Work work, Set<String> missing, int shard, int shards) {
    return DenseFamily.shareLine(
        runner
            .denseRuns()
            .encodeShare(
                work.task().data(), work.model(), denseVariants(work, missing), shard, shards));
  }

  /** Whether a cell of the sparse side or the hybrid is among {@code missing}. */
  private boolean sidesMissing(Work work, Set<String> missing) {
    return work.cells().stream()
        .anyMatch(
            cell ->
                missing.contains(cell.fingerprint())
                    && !cell.key().system().family().equals(name()));
  }

  /**
   * The dense variants the {@code missing} cells rank with: those of the LightRetriever cells, and
   * the base variant when the sparse side or the hybrid is missing (the hybrid fuses the base).
   */
  private List<DenseVariant> denseVariants(Work work, Set<String> missing) {
    List<DenseVariant> variants = new ArrayList<>();
    for (PlannedCell cell : work.cells()) {
      if (missing.contains(cell.fingerprint()) && cell.key().system().family().equals(name())) {
        variants.add(DenseVariant.parse(cell.key().variant()));
      }
    }
    if (sidesMissing(work, missing)
        && variants.stream().noneMatch(v -> v.name().equals(DenseVariant.BASE.name()))) {
      variants.add(DenseVariant.BASE);
    }
    return variants;
  }

  @Override
  public Map<String, CellResult> run(WorkContext runner, Work work, Set<String> missing) {
    BeirDataset data = work.task().data();
    String model = work.model();
    List<DenseVariant> variants = denseVariants(work, missing);
    boolean sides = sidesMissing(work, missing);
    runner.hooks().prepareLightCache(model, 0, runner.progress());
    // Truncated variants look their queries up in a token table of their own width.
    variants.stream()
        .mapToInt(DenseVariant::truncate)
        .filter(width -> width > 0)
        .distinct()
        .sorted()
        .forEach(width -> runner.hooks().prepareLightCache(model, width, runner.progress()));
    Map<String, CellResult> dense =
        runner
            .denseRuns()
            .run(data, model, DenseRetrieval.QueryEncoding.LIGHT, variants, system(model));
    Map<String, CellResult> runs = new LinkedHashMap<>();
    for (PlannedCell cell : work.cells()) {
      if (cell.key().system().family().equals(name()) && dense.containsKey(cell.key().variant())) {
        runs.put(cell.fingerprint(), dense.get(cell.key().variant()));
      }
    }
    if (sides) {
      Map<String, CellResult> sideRuns =
          sides(runner, data, model, dense.get(DenseVariant.BASE.name()));
      for (PlannedCell cell : work.cells()) {
        if (sideRuns.containsKey(cell.key().system().family())) {
          runs.put(cell.fingerprint(), sideRuns.get(cell.key().system().family()));
        }
      }
    }
    return runs;
  }

  /** The sparse side and the hybrid, by cell family. */
  private Map<String, CellResult> sides(
      WorkContext runner, BeirDataset data, String model, CellResult dense) {
    int topK = runner.settings().topK();
    RetrievalResult sparse =
        runner
            .hooks()
            .sparse(
                new SparseRetrieval(runner.services().index(), runner.services().encoder())
                    .withLatencyConcurrency(runner.settings().latencyConcurrency())
                    .withShards(runner.settings().shards())
                    .withReplicas(runner.settings().replicas()))
            .run(data, model, true, topK, List.of(SparseVariant.BASE))
            .get(SparseVariant.BASE.name());
    long start = System.nanoTime();
    Map<String, Map<String, List<ScoredDoc>>> systems = new LinkedHashMap<>();
    systems.put("light-dense", dense.rankings());
    systems.put(SPARSE_SIDE, sparse.rankings());
    HybridFusion fusion = runner.settings().lightHybrid();
    Map<String, List<ScoredDoc>> fused = fusion.fuse(runner.services().index(), topK, systems);
    long fuseNanos = System.nanoTime() - start;
    CellResult sparseRun =
        RunScorer.score(data, SPARSE_SIDE + ":" + model, "base", RankingMode.RETRIEVAL, sparse);
    Timings denseTimings = dense.timings();
    RetrievalResult hybrid =
        new RetrievalResult(
            fused,
            (long)
                    ((denseTimings.require(Timing.INDEX_MS)
                            + java.util.Objects.requireNonNullElse(
                                denseTimings.get(Timing.VARIANT_INDEX_MS), 0.0))
                        * 1e6)
                + sparse.indexNanos(),
            (long) (denseTimings.require(Timing.SEARCH_MS) * 1e6)
                + sparse.searchNanos()
                + fuseNanos,
            data.corpus().size(),
            (long) (denseTimings.require(Timing.DOCUMENT_ENCODE_MS) * 1e6)
                + sparse.documentEncodeNanos(),
            (long) (denseTimings.require(Timing.QUERY_ENCODE_MS) * 1e6) + sparse.queryEncodeNanos(),
            hybridDiagnostics(fusion, dense, sparseRun));
    Map<String, CellResult> runs = new LinkedHashMap<>();
    runs.put(SPARSE_SIDE, sparseRun);
    runs.put(
        HYBRID, RunScorer.score(data, HYBRID + ":" + model, "base", RankingMode.RETRIEVAL, hybrid));
    return runs;
  }

  /**
   * The hybrid's latency is its two sides' (queries are encoded and searched both ways), the
   * concurrent one too ({@link ConcurrentLatency#serial}).
   */
  private static RunDiagnostics hybridDiagnostics(
      HybridFusion fusion, CellResult dense, CellResult sparse) {
    return RunDiagnostics.builder()
        .fusion(
            (fusion.method().equals(HybridFusion.MINMAX)
                    ? "min-max normalized"
                    : "RRF k=" + fusion.k())
                + ", dense weight "
                + fusion.firstWeight())
        .latencies(
            Timings.sum(
                dense.timings().get(Timing.QUERY_ENCODE_LATENCY_US),
                sparse.timings().get(Timing.QUERY_ENCODE_LATENCY_US)),
            Timings.sum(
                dense.timings().get(Timing.SEARCH_LATENCY_US),
                sparse.timings().get(Timing.SEARCH_LATENCY_US)))
        .latencyTails(
            Timings.sum(
                dense.timings().get(Timing.QUERY_ENCODE_LATENCY_P99_US),
                sparse.timings().get(Timing.QUERY_ENCODE_LATENCY_P99_US)),
            Timings.sum(
                dense.timings().get(Timing.SEARCH_LATENCY_P99_US),
                sparse.timings().get(Timing.SEARCH_LATENCY_P99_US)))
        .concurrentLatency(
            ConcurrentLatency.serial(
                java.util.Arrays.asList(
                    dense.diagnostics().concurrentLatency(),
                    sparse.diagnostics().concurrentLatency())))
        .build();
  }
}
