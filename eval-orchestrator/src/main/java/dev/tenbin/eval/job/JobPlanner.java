package dev.tenbin.eval.job;

import dev.tenbin.eval.TenbinVersion;
import dev.tenbin.eval.retrieval.DenseVariant;
import dev.tenbin.eval.retrieval.RetrieverSpec;
import dev.tenbin.eval.retrieval.SparseVariant;
import dev.tenbin.eval.store.CellKey;
import java.util.ArrayList;
import java.util.Collections;
import java.util.TreeMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * Splits a job into work items and fingerprinted cells: every retriever × task × variant, then per
 * task the candidate sets and every reranker × candidate set × mode.
 */
public final class JobPlanner {
  /** Modes a reranker pass produces. */
  public static final List<String> RERANK_MODES = List.of("rerank", "rerank_without_safeguard");

  private final JobSpec spec;
  private final Function<String, ModelFacts> encoderModels;
  private final Function<String, ModelFacts> rerankerModels;

  /**
   * @param encoderModels facts of an encoder model id (asked once per model)
   * @param rerankerModels facts of a cross-encoder reranker id
   */
  public JobPlanner(JobSpec spec, Function<String, ModelFacts> encoderModels, Function<String, ModelFacts> rerankerModels) {
    this.spec = spec;
    Map<String, ModelFacts> encoders = new LinkedHashMap<>();
    Map<String, ModelFacts> rerankers = new LinkedHashMap<>();
    this.encoderModels = id -> encoders.computeIfAbsent(id, encoderModels);
    this.rerankerModels = id -> rerankers.computeIfAbsent(id, rerankerModels);
  }

  public List<Work> plan(List<JobTask> tasks) {
    List<Work> work = new ArrayList<>();
    for (JobTask task : tasks) {
      for (JobSpec.RetrieverEntry entry : spec.retrievers()) {
        work.add(retrieval(task, entry));
      }
    }
    if (!spec.rerankers().isEmpty()) {
      for (JobTask task : tasks) {
        Map<String, String> sets = candidateSets(task);
        work.add(new Work(Work.Kind.CANDIDATES, task, spec.candidateDenseModel(), List.of(), List.copyOf(sets.values()), ""));
        for (String reranker : spec.rerankers()) {
          for (Map.Entry<String, String> set : sets.entrySet()) {
            work.add(rerank(task, reranker, set.getKey(), set.getValue()));
          }
        }
      }
    }
    return work;
  }

  private Work retrieval(JobTask task, JobSpec.RetrieverEntry entry) {
    RetrieverSpec retriever = entry.retriever();
    String model = retriever.model();
    List<PlannedCell> cells = new ArrayList<>();
    return switch (retriever.family()) {
      case BM25 -> {
        Map<String, Object> identity = new LinkedHashMap<>();
        identity.put("lucene", TenbinVersion.lucene());
        identity.put("bm25", "k1=0.9 b=0.4 title+text");
        cells.add(cell(task, "bm25", "bm25", "base", "retrieval", identity, Map.of("lucene_version", TenbinVersion.lucene()), Map.of()));
        yield new Work(Work.Kind.BM25, task, "", cells, List.of(), "");
      }
      case DENSE -> {
        ModelFacts facts = encoderModels.apply(model);
        for (String variant : denseVariants(entry, facts)) {
          DenseVariant parsed = DenseVariant.parse(variant);
          Map<String, Double> modelFacts = modelFacts(facts, parsed.truncate() > 0 ? parsed.truncate() : facts.dimension());
          cells.add(cell(task, model, "dense", variant, "retrieval", modelIdentity(facts, variant), modelVersions(facts), modelFacts));
        }
        yield new Work(Work.Kind.DENSE, task, model, cells, List.of(), "");
      }
      case LIGHT -> {
        ModelFacts facts = encoderModels.apply(model);
        Map<String, Object> identity = modelIdentity(facts, "base");
        cells.add(cell(task, model, "light", "base", "retrieval", identity, modelVersions(facts), modelFacts(facts, facts.dimension())));
        cells.add(cell(task, model, "light-sparse", "base", "retrieval", identity, modelVersions(facts), modelFacts(facts, 0)));
        Map<String, Object> hybrid = new LinkedHashMap<>(identity);
        hybrid.put("hybrid", "min-max normalized interpolation, dense weight " + spec.lightHybridDenseWeight());
        cells.add(cell(task, model, "light-hybrid", "base", "retrieval", hybrid, modelVersions(facts), modelFacts(facts, facts.dimension())));
        yield new Work(Work.Kind.LIGHT, task, model, cells, List.of(), "");
      }
      case SPARSE, SPARSE_BM25 -> {
        ModelFacts facts = encoderModels.apply(model);
        String family = retriever.family() == RetrieverSpec.Family.SPARSE ? "sparse" : "sparse-bm25";
        LinkedHashSet<String> variants = new LinkedHashSet<>();
        for (String name : entry.variants().isEmpty() ? List.of("base") : entry.variants()) {
          SparseVariant.parse(name).forEach(v -> variants.add(v.name()));
        }
        for (String variant : variants) {
          cells.add(cell(task, model, family, variant, "retrieval", modelIdentity(facts, variant), modelVersions(facts), modelFacts(facts, 0)));
        }
        yield new Work(
            retriever.family() == RetrieverSpec.Family.SPARSE ? Work.Kind.SPARSE : Work.Kind.SPARSE_BM25, task, model, cells, List.of(), "");
      }
      case MULTIVECTOR -> {
        ModelFacts facts = encoderModels.apply(model);
        cells.add(cell(task, model, "multivector", "base", "retrieval", modelIdentity(facts, "base"), modelVersions(facts), modelFacts(facts, facts.dimension())));
        yield new Work(Work.Kind.MULTIVECTOR, task, model, cells, List.of(), "");
      }
    };
  }

  /** Candidate set kind to the fingerprint of the file that holds it. */
  private Map<String, String> candidateSets(JobTask task) {
    Map<String, String> sets = new LinkedHashMap<>();
    for (String kind : spec.candidateSets()) {
      Map<String, Object> identity = new LinkedHashMap<>();
      identity.put("artifact", "candidate_set");
      identity.put("kind", kind);
      identity.put("dataset_sha", task.datasetSha());
      identity.put("language", task.language());
      identity.put("lucene", TenbinVersion.lucene());
      identity.put("recipe", "bm25 top-500 + dense top-500, RRF k=100, top-100, safeguard at 101");
      if (kind.equals("hybrid")) {
        identity.put("dense_model", encoderModels.apply(spec.candidateDenseModel()).identity());
        identity.put("onnxruntime", TenbinVersion.onnxRuntime());
      }
      sets.put(kind, CellFingerprint.of(identity));
    }
    return sets;
  }

  private Work rerank(JobTask task, String reranker, String kind, String candidatesFingerprint) {
    int colon = reranker.indexOf(':');
    boolean biEncoder = colon > 0 && List.of("dense", "sparse", "multivector").contains(reranker.substring(0, colon));
    String model = biEncoder ? reranker.substring(colon + 1) : reranker;
    String family = biEncoder ? "rerank-" + reranker.substring(0, colon) : "rerank-cross";
    ModelFacts facts = biEncoder ? encoderModels.apply(model) : rerankerModels.apply(reranker);
    List<PlannedCell> cells = new ArrayList<>();
    for (String mode : RERANK_MODES) {
      Map<String, Object> identity = modelIdentity(facts, "candidates_" + kind);
      identity.put("candidate_set", candidatesFingerprint);
      identity.put("reranker", reranker);
      cells.add(cell(task, model, family, "candidates_" + kind, mode, identity, modelVersions(facts), modelFacts(facts, facts.dimension())));
    }
    return new Work(Work.Kind.RERANK, task, reranker, cells, List.of(candidatesFingerprint), kind);
  }

  private List<String> denseVariants(JobSpec.RetrieverEntry entry, ModelFacts facts) {
    if (!entry.variants().isEmpty()) {
      return entry.variants();
    }
    List<String> variants = new ArrayList<>();
    DenseVariant.automatic().forEach(v -> variants.add(v.name()));
    for (int dimension : facts.matryoshkaDimensions()) {
      if (dimension > 0 && dimension < facts.dimension()) {
        variants.add("truncate" + dimension);
        variants.add("truncate" + dimension + "_binary_rescore");
      }
    }
    return variants;
  }

  private Map<String, Object> modelIdentity(ModelFacts facts, String variant) {
    Map<String, Object> identity = new LinkedHashMap<>();
    identity.put("model", facts.identity());
    identity.put("onnxruntime", TenbinVersion.onnxRuntime());
    identity.put("tokenizers", TenbinVersion.tokenizers());
    identity.put("similarity", spec.similarity());
    identity.put("variant", variant);
    return identity;
  }

  private static Map<String, String> modelVersions(ModelFacts facts) {
    Map<String, String> versions = new LinkedHashMap<>(facts.versions());
    versions.put("onnxruntime_version", TenbinVersion.onnxRuntime());
    versions.put("tokenizers_version", TenbinVersion.tokenizers());
    return versions;
  }

  private static Map<String, Double> modelFacts(ModelFacts facts, int dimension) {
    Map<String, Double> out = new LinkedHashMap<>();
    if (dimension > 0) {
      out.put("dimension", (double) dimension);
    }
    if (facts.parameters() > 0) {
      out.put("parameters", (double) facts.parameters());
    }
    return out;
  }

  private PlannedCell cell(
      JobTask task, String model, String family, String variant, String mode, Map<String, Object> identity,
      Map<String, String> versions, Map<String, Double> facts) {
    CellKey key = new CellKey(task.benchmark(), task.dataset(), task.task(), task.language(), task.domain(), model, family, variant, mode);
    Map<String, Object> fields = new LinkedHashMap<>(identity);
    fields.put("key", key);
    fields.put("dataset_sha", task.datasetSha());
    fields.put("top_k", spec.topK());
    Map<String, String> allVersions = new LinkedHashMap<>();
    allVersions.put("dataset_sha", task.datasetSha());
    allVersions.putAll(task.provenance());
    allVersions.putAll(versions);
    allVersions.put("tenbin_version", TenbinVersion.get());
    return new PlannedCell(
        key, CellFingerprint.of(fields), Collections.unmodifiableMap(new TreeMap<>(allVersions)),
        Collections.unmodifiableMap(new TreeMap<>(facts)));
  }
}
