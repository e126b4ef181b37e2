package dev.tenbin.eval.job;

import dev.tenbin.eval.family.Families;
import dev.tenbin.eval.plan.CellIdentity;
import dev.tenbin.eval.plan.JobSettings;
import dev.tenbin.eval.plan.JobTask;
import dev.tenbin.eval.plan.ModelFacts;
import dev.tenbin.eval.plan.PlanContext;
import dev.tenbin.eval.plan.PlannedCell;
import dev.tenbin.eval.plan.RetrieverEntry;
import dev.tenbin.eval.plan.Work;
import dev.tenbin.eval.provenance.TenbinVersion;
import dev.tenbin.eval.result.RankingMode;
import dev.tenbin.eval.store.CellKey;
import dev.tenbin.model.tokenizer.LengthTokenizer;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;

/**
 * Splits a job into work items and fingerprinted cells: every retriever × task × variant (each
 * retrieval family plans its own), then per task the candidate sets and every reranker × candidate
 * set × mode. The families plan through the helpers here, so every cell is keyed and fingerprinted
 * the same way.
 */
public final class JobPlanner implements PlanContext {
  private final JobSpec spec;
  private final Function<String, ModelFacts> encoderModels;
  private final Function<String, ModelFacts> rerankerModels;

  /**
   * @param encoderModels facts of an encoder model id (asked once per model)
   * @param rerankerModels facts of a cross-encoder reranker id
   */
  public JobPlanner(
      JobSpec spec,
      Function<String, ModelFacts> encoderModels,
      Function<String, ModelFacts> rerankerModels) {
    this.spec = spec;
    Map<String, ModelFacts> encoders = new LinkedHashMap<>();
    Map<String, ModelFacts> rerankers = new LinkedHashMap<>();
    this.encoderModels = id -> encoders.computeIfAbsent(id, encoderModels);
    this.rerankerModels = id -> rerankers.computeIfAbsent(id, rerankerModels);
  }

  public List<Work> plan(List<JobTask> tasks) {
    List<Work> work = new ArrayList<>();
    for (JobTask task : tasks) {
      work.addAll(retrievers(task));
    }
    if (!spec.rerankers().isEmpty()) {
      for (JobTask task : tasks) {
        Map<String, String> sets = candidateSets(task);
        work.add(
            new Work(
                Families.candidates(),
                task,
                spec.candidateDenseModel(),
                List.of(),
                List.copyOf(sets.values()),
                ""));
        work.addAll(rerank(task, sets));
      }
    }
    return work;
  }

  /**
   * The work of every retriever of the spec on {@code task}: the retrievers that read no other
   * cells, in spec order; then the prerequisites of the others (a hybrid's components) that are not
   * already planned, each cell once; then those others, in spec order. So a component is computed
   * once and stored before any hybrid that fuses it runs.
   */
  public List<Work> retrievers(JobTask task) {
    List<Work> first = new ArrayList<>();
    List<RetrieverEntry> readers = new ArrayList<>();
    for (RetrieverEntry entry : spec.retrievers()) {
      if (entry.retriever().family().prerequisites(this, task, entry).isEmpty()) {
        first.add(entry.retriever().family().plan(this, task, entry));
      } else {
        readers.add(entry);
      }
    }
    java.util.Set<String> planned = new java.util.HashSet<>();
    first.forEach(w -> w.cells().forEach(c -> planned.add(c.fingerprint())));
    List<Work> work = new ArrayList<>(first);
    for (RetrieverEntry entry : readers) {
      for (Work prerequisite : entry.retriever().family().prerequisites(this, task, entry)) {
        List<PlannedCell> cells =
            prerequisite.cells().stream().filter(c -> planned.add(c.fingerprint())).toList();
        if (!cells.isEmpty()) {
          work.add(
              new Work(
                  prerequisite.kind(),
                  prerequisite.task(),
                  prerequisite.model(),
                  cells,
                  prerequisite.artifacts(),
                  prerequisite.candidateKind()));
        }
      }
    }
    for (RetrieverEntry entry : readers) {
      work.add(entry.retriever().family().plan(this, task, entry));
    }
    return work;
  }

  /**
   * Every reranker of the spec over the given candidate sets of {@code task} (kind to the
   * fingerprint of the file that holds it).
   */
  public List<Work> rerank(JobTask task, Map<String, String> candidateSets) {
    List<Work> work = new ArrayList<>();
    for (String reranker : spec.rerankers()) {
      for (Map.Entry<String, String> set : candidateSets.entrySet()) {
        work.add(Families.planRerank(this, task, reranker, set.getKey(), set.getValue()));
      }
    }
    return work;
  }

  /** The job's spec. */
  public JobSpec spec() {
    return spec;
  }

  @Override
  public JobSettings settings() {
    return spec.settings();
  }

  /** Facts of an encoder model (asked once per model). */
  @Override
  public ModelFacts encoderFacts(String model) {
    return encoderModels.apply(model);
  }

  /** Facts of a cross-encoder reranker (asked once per id). */
  @Override
  public ModelFacts rerankerFacts(String reranker) {
    return rerankerModels.apply(reranker);
  }

  /** Candidate set kind to the fingerprint of the file that holds it. */
  private Map<String, String> candidateSets(JobTask task) {
    Map<String, String> sets = new LinkedHashMap<>();
    for (String kind : spec.candidateSets()) {
      CellIdentity identity =
          CellIdentity.empty()
              .with("artifact", "candidate_set")
              .with("kind", kind)
              .with("dataset_sha", task.datasetSha())
              .with("language", task.language())
              .with("lucene", TenbinVersion.lucene())
              .with("recipe", "bm25 top-500 + dense top-500, RRF k=100, top-100, safeguard at 101");
      if (kind.equals("hybrid")) {
        identity =
            identity
                .with("dense_model", encoderModels.apply(spec.candidateDenseModel()).identity())
                .with("onnxruntime", TenbinVersion.onnxRuntime());
      }
      sets.put(kind, identity.fingerprint());
    }
    return sets;
  }

  /**
   * What identifies a model's cell: the model, the libraries that score it, similarity and variant.
   */
  @Override
  public CellIdentity modelIdentity(ModelFacts facts, String variant) {
    return CellIdentity.empty()
        .with("model", facts.identity())
        .with("onnxruntime", TenbinVersion.onnxRuntime())
        .with("tokenizers", TenbinVersion.tokenizers())
        .with("similarity", spec.similarity())
        .with("variant", variant);
  }

  /**
   * What a span task's stored position analysis depends on beyond the run: the length tokenizer (a
   * {@code tokenizer.json} by the hash of its bytes), the minimum bin count and the dataset whose
   * lengths are borrowed. Added to a cell's identity only when it differs from the default analysis
   * (the default tokenizer and count over the task's own documents), so cells stored before these
   * settings existed keep their fingerprints.
   */
  private Map<String, String> positionIdentity(JobTask task) {
    Map<String, String> fields = new TreeMap<>();
    fields.put(
        "tokenizer",
        lengthTokenizers.computeIfAbsent(spec.positions().tokenizer(), LengthTokenizer::identity));
    fields.put("min_count", Integer.toString(spec.positions().minCount()));
    fields.put(
        "length_reference", task.lengthSource() == null ? "" : task.lengthSource().datasetSha());
    return fields;
  }

  /** The length tokenizer's identity, read once per plan (a file's hash when it is a path). */
  private final Map<String, String> lengthTokenizers =
      new java.util.concurrent.ConcurrentHashMap<>();

  /**
   * A planned cell of {@code task}: its key, its fingerprint over {@code identity} and the key, the
   * dataset and the depth, and the versions and facts stored with it.
   */
  @Override
  public PlannedCell cell(
      JobTask task,
      String model,
      String family,
      String variant,
      RankingMode mode,
      CellIdentity identity,
      Map<String, String> versions,
      Map<String, Double> facts) {
    CellKey key = task.cellKey(Families.system(family, model), variant, mode);
    CellIdentity full =
        identity.with("key", key).with("dataset_sha", task.datasetSha()).with("top_k", spec.topK());
    if (!task.data().spans().isEmpty()
        && (!spec.positions().isDefaultAnalysis() || task.lengthSource() != null)) {
      full = full.with("positions", positionIdentity(task));
    }
    String fingerprint = full.fingerprint();
    Map<String, String> allVersions = new LinkedHashMap<>();
    allVersions.put("dataset_sha", task.datasetSha());
    allVersions.putAll(task.provenance());
    allVersions.putAll(versions);
    allVersions.put("tenbin_version", TenbinVersion.get());
    return new PlannedCell(
        key,
        fingerprint,
        Collections.unmodifiableMap(new TreeMap<>(allVersions)),
        Collections.unmodifiableMap(new TreeMap<>(facts)));
  }
}
