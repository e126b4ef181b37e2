package dev.tenbin.eval.family;

import dev.tenbin.core.InvalidInputException;
import dev.tenbin.eval.plan.CellIdentity;
import dev.tenbin.eval.plan.JobTask;
import dev.tenbin.eval.plan.PlanContext;
import dev.tenbin.eval.plan.PlannedCell;
import dev.tenbin.eval.plan.RetrievalFamily;
import dev.tenbin.eval.plan.RetrieverEntry;
import dev.tenbin.eval.plan.RetrieverSpec;
import dev.tenbin.eval.plan.Work;
import dev.tenbin.eval.plan.WorkContext;
import dev.tenbin.eval.result.CellResult;
import dev.tenbin.eval.result.ConcurrentLatency;
import dev.tenbin.eval.result.RankingMode;
import dev.tenbin.eval.result.RunDiagnostics;
import dev.tenbin.eval.result.Timing;
import dev.tenbin.eval.result.Timings;
import dev.tenbin.eval.retrieval.HybridFusion;
import dev.tenbin.eval.retrieval.RetrievalResult;
import dev.tenbin.eval.retrieval.RunScorer;
import dev.tenbin.eval.store.CellRecord;
import dev.tenbin.eval.store.StoredDoc;
import dev.tenbin.eval.store.StoredQuery;
import dev.tenbin.scoring.metrics.ScoredDoc;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * {@code hybrid:A+B[+C...]}: the fusion of the rankings of two or more other retrievers, each
 * {@code NAME} or {@code NAME@VARIANT} ({@code bm25}, {@code dense:MODEL@int8}, {@code
 * light:MODEL}, ...; no variant: base). Its variants are fusions ({@link HybridFusion}: {@code
 * rrf_k60} by default, {@code minmax_w0.7}, ...).
 *
 * <p>A hybrid retrieves nothing itself: it fuses the stored rankings of its components' cells. The
 * planner puts every component's cell into the plan before the hybrid (once, however many hybrids
 * or entries name it: a component that is also a retriever of the job is the same cell), and the
 * hybrid's fingerprint is derived from the components' fingerprints, in order, and the fusion.
 */
final class HybridFamily implements RetrievalFamily {
  static final String NAME = "hybrid";

  /** A component: a retriever and the variant of it that is fused. */
  record Component(RetrieverSpec retriever, String variant) {
    /** "dense:MODEL@int8", or "bm25" for a base variant. */
    String name() {
      return retriever.name() + (variant.equals("base") ? "" : "@" + variant);
    }
  }

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public String usage() {
    return "hybrid:A+B";
  }

  @Override
  public String description() {
    return "fusion of two or more of these retrievers, each NAME or NAME@VARIANT, e.g."
        + " hybrid:bm25+dense:MODEL; --variant rrf_kK[_wW] (default rrf_k60) or minmax[_wW], W"
        + " the first one's weight";
  }

  @Override
  public void checkModel(String model) {
    components(model);
  }

  /** The encoder models of the components, in order. */
  @Override
  public List<String> encoderModels(String model) {
    List<String> models = new ArrayList<>();
    for (Component component : components(model)) {
      models.addAll(component.retriever().family().encoderModels(component.retriever().model()));
    }
    return models;
  }

  @Override
  public void checkVariant(String field, String variant) {
    try {
      HybridFusion.parse(variant);
    } catch (InvalidInputException e) {
      throw new InvalidInputException(field, e.getMessage());
    }
  }

  @Override
  public List<String> evalVariants(List<String> flags) {
    List<String> variants =
        flags.stream()
            .filter(HybridFusion::isFusionVariant)
            .map(v -> HybridFusion.parse(v).name())
            .distinct()
            .toList();
    return variants.isEmpty() ? List.of(HybridFusion.DEFAULT.name()) : variants;
  }

  /** The components of {@code model} ("bm25+dense:MODEL@int8"); throws naming --retriever. */
  static List<Component> components(String model) {
    String[] parts = model.split("\\+", -1);
    if (parts.length < 2) {
      throw new InvalidInputException(
          "--retriever",
          "hybrid:"
              + model
              + " fuses "
              + (model.isBlank() ? "nothing" : "one retriever")
              + ": name two or more joined by +, e.g. hybrid:bm25+dense:MODEL");
    }
    List<Component> components = new ArrayList<>();
    Set<String> seen = new HashSet<>();
    for (String part : parts) {
      String text = part.trim();
      int at = text.lastIndexOf('@');
      String variant = at < 0 ? "base" : text.substring(at + 1);
      if (text.startsWith(NAME + ":")) {
        throw new InvalidInputException(
            "--retriever",
            "a hybrid's components are retrievers other than hybrid (a hybrid of three is"
                + " hybrid:A+B+C): hybrid:"
                + model);
      }
      RetrieverSpec retriever = Families.parse(at < 0 ? text : text.substring(0, at));
      retriever.family().checkVariant("--retriever", variant);
      Component component = new Component(retriever, variant);
      if (!seen.add(component.name())) {
        throw new InvalidInputException(
            "--retriever", "hybrid:" + model + " names " + component.name() + " twice");
      }
      components.add(component);
    }
    return components;
  }

  @Override
  public List<Work> prerequisites(PlanContext planner, JobTask task, RetrieverEntry entry) {
    List<Work> works = new ArrayList<>();
    for (Component component : components(entry.retriever().model())) {
      works.add(componentWork(planner, task, component));
    }
    return works;
  }

  /** The work of one component, planned by its family and kept to the one cell fused. */
  private static Work componentWork(PlanContext planner, JobTask task, Component component) {
    RetrievalFamily family = component.retriever().family();
    Work work =
        family.plan(
            planner, task, new RetrieverEntry(component.retriever(), List.of(component.variant())));
    List<PlannedCell> cells =
        work.cells().stream()
            .filter(
                c ->
                    c.key().system().family().equals(family.name())
                        && c.key().variant().equals(component.variant()))
            .toList();
    if (cells.size() != 1) {
      throw new IllegalStateException(
          "expected one cell of " + component.name() + " to fuse, planned " + cells.size());
    }
    return new Work(
        work.kind(), work.task(), work.model(), cells, work.artifacts(), work.candidateKind());
  }

  @Override
  public Work plan(PlanContext planner, JobTask task, RetrieverEntry entry) {
    String model = entry.retriever().model();
    List<Component> components = components(model);
    List<String> inputs = new ArrayList<>();
    for (Work work : prerequisites(planner, task, entry)) {
      inputs.add(work.cells().getFirst().fingerprint());
    }
    List<String> variants =
        (entry.variants().isEmpty() ? List.of(HybridFusion.DEFAULT.name()) : entry.variants())
            .stream().map(v -> HybridFusion.parse(v).name()).distinct().toList();
    List<PlannedCell> cells = new ArrayList<>();
    for (String variant : variants) {
      HybridFusion fusion = HybridFusion.parse(variant);
      CellIdentity identity =
          CellIdentity.empty()
              .with("hybrid_components", String.join(" ", inputs))
              .with("fusion", fusion.describe(components.size()));
      cells.add(
          planner.cell(
              task, model, name(), variant, RankingMode.RETRIEVAL, identity, Map.of(), Map.of()));
    }
    return new Work(this, task, model, cells, List.copyOf(inputs), "");
  }

  @Override
  public Map<String, CellResult> run(WorkContext runner, Work work, Set<String> missing) {
    List<Component> components = components(work.model());
    Map<String, Map<String, List<ScoredDoc>>> rankings = new LinkedHashMap<>();
    List<CellRecord> inputs = new ArrayList<>();
    for (int i = 0; i < components.size(); i++) {
      String fingerprint = work.artifacts().get(i);
      Component component = components.get(i);
      CellRecord input =
          runner
              .storedCell(fingerprint)
              .orElseThrow(
                  () ->
                      new IllegalStateException(
                          "hybrid:"
                              + work.model()
                              + " needs the stored cell of "
                              + component.name()
                              + " ("
                              + fingerprint
                              + "), which its work did not store; run the job again once it"
                              + " has"));
      inputs.add(input);
      rankings.put(component.name(), rankings(input));
    }
    Map<String, CellResult> runs = new LinkedHashMap<>();
    for (PlannedCell cell : work.cells()) {
      if (!missing.contains(cell.fingerprint())) {
        continue;
      }
      HybridFusion fusion = HybridFusion.parse(cell.key().variant());
      long start = System.nanoTime();
      Map<String, List<ScoredDoc>> fused =
          fusion.fuse(runner.services().index(), runner.settings().topK(), rankings);
      long fuseNanos = System.nanoTime() - start;
      RetrievalResult result =
          new RetrievalResult(
              fused,
              // the components' indexing: their shared ingest and what each dense variant built
              nanos(inputs, Timing.INDEX_MS) + nanos(inputs, Timing.VARIANT_INDEX_MS),
              nanos(inputs, Timing.SEARCH_MS) + fuseNanos,
              work.task().data().corpus().size(),
              nanos(inputs, Timing.DOCUMENT_ENCODE_MS),
              nanos(inputs, Timing.QUERY_ENCODE_MS),
              RunDiagnostics.builder()
                  .fusion(fusion.describe(components.size()))
                  .latencies(
                      sum(inputs, Timing.QUERY_ENCODE_LATENCY_US),
                      sum(inputs, Timing.SEARCH_LATENCY_US))
                  .latencyTails(
                      sum(inputs, Timing.QUERY_ENCODE_LATENCY_P99_US),
                      sum(inputs, Timing.SEARCH_LATENCY_P99_US))
                  .concurrentLatency(
                      ConcurrentLatency.serial(
                          inputs.stream()
                              .map(input -> ConcurrentLatency.fromDiagnostics(input.diagnostics()))
                              .toList()))
                  .build());
      runs.put(
          cell.fingerprint(),
          RunScorer.score(
              work.task().data(),
              system(work.model()),
              cell.key().variant(),
              RankingMode.RETRIEVAL,
              result));
    }
    return runs;
  }

  /** A stored cell's rankings, by query id. */
  private static Map<String, List<ScoredDoc>> rankings(CellRecord cell) {
    Map<String, List<ScoredDoc>> rankings = new LinkedHashMap<>();
    for (StoredQuery query : cell.queries()) {
      List<ScoredDoc> docs = new ArrayList<>(query.docs().size());
      for (StoredDoc doc : query.docs()) {
        docs.add(new ScoredDoc(doc.docId(), doc.score()));
      }
      rankings.put(query.queryId(), docs);
    }
    return rankings;
  }

  /** A stage's time over the components: each one's stored milliseconds, summed, in nanoseconds. */
  private static long nanos(List<CellRecord> inputs, Timing timing) {
    double millis = 0;
    for (CellRecord input : inputs) {
      millis += input.timings().getOrDefault(timing.key(), 0.0);
    }
    return (long) (millis * 1e6);
  }

  /**
   * A latency of the hybrid: its components', summed (each query runs through every one); so is its
   * concurrent latency ({@link ConcurrentLatency#serial}, when the components measured it with the
   * same queries in flight).
   */
  private static Double sum(List<CellRecord> inputs, Timing timing) {
    Double total = inputs.getFirst().timings().get(timing.key());
    for (CellRecord input : inputs.subList(1, inputs.size())) {
      total = Timings.sum(total, input.timings().get(timing.key()));
    }
    return total;
  }
}
