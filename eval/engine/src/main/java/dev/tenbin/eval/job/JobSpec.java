package dev.tenbin.eval.job;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.tenbin.core.InvalidInputException;
import dev.tenbin.core.SafeText;
import dev.tenbin.eval.family.Families;
import dev.tenbin.eval.plan.JobSettings;
import dev.tenbin.eval.plan.RetrieverEntry;
import dev.tenbin.eval.plan.RetrieverSpec;
import dev.tenbin.eval.positions.PositionSettings;
import dev.tenbin.eval.retrieval.Bm25Settings;
import dev.tenbin.eval.retrieval.DenseSimilarities;
import dev.tenbin.eval.retrieval.DenseVariantGrid;
import dev.tenbin.eval.retrieval.HybridFusion;
import dev.tenbin.eval.retrieval.LatencyProbe;
import dev.tenbin.eval.taskset.YamlErrors;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * A job: retrievers and rerankers × the tasks of one or more task sets × efficiency variants ×
 * modes, read from YAML.
 *
 * <pre>{@code
 * name: shared-datasets
 * task_sets: [local-beir.yaml]          # relative to this file
 * tasks: [xquad-en, msmarco-5k]         # optional: only these tasks
 * retrievers:
 *   - bm25
 *   - dense:bge-small-en-v1.5           # no variants given: the automatic ones
 *   - {retriever: dense:e5-small-v2, variants: [base, int8_rescore]}
 *   - {retriever: bm25, k1: 1.2, b: 0.75}  # BM25 parameters (default 0.9 / 0.4): system bm25:k1=1.2,b=0.75
 *   - retriever: dense:e5-small-v2        # the cross product, named canonically (DenseVariantGrid):
 *     variants: {truncate: [0, 256], quantization: [none, int8, binary], rescore: [false, true],
 *                index: [exact, hnsw]}    # a list may mix names and such grids
 *   - light:bge-small-en-v1.5           # LightRetriever: dense lookup, token-count sparse, hybrid
 *   - sparse:MODEL, sparse-bm25:MODEL, multivector:MODEL  # see Families for every family
 *   - hybrid:bm25+dense:bge-small-en-v1.5 # fusion of stored component rankings, RRF k=60
 *   - {hybrid: {of: [bm25, dense:bge-small-en-v1.5@int8], fusion: minmax, weight: 0.3}}
 * rerankers: [dense:bge-small-en-v1.5]  # rescoring the stored candidate sets
 * candidates: {dense_model: bge-small-en-v1.5, sets: [hybrid, bm25]}
 * similarity: cosine                    # cosine, dot or best
 * light_hybrid_dense_weight: 0.5
 * light_hybrid_fusion: minmax           # or rrf, rrf_kK (weights: dense W, sparse 1 - W)
 * top_k: 100
 * positions: {tokenizer: bge-small-en-v1.5, min_count: 5, reference: bm25}  # tasks with spans
 * shards: 1                               # each collection split into this many shards (same rankings)
 * replicas: 1                             # copies of each shard on distinct index pods (failover)
 * price: {cpu_hour: 0.10, gpu_hour: 2.50}  # cost columns of the job's leaderboards (Price)
 * measures:                             # trec_eval -m measures the leaderboards add (MeasureSpecs)
 *   - P.5,10,100
 *   - ndcg_cut.5,20
 * latency: {concurrency: 8}             # queries in flight in the concurrent latency probe (4)
 * runs:                                 # TREC runs made elsewhere, imported as external:NAME
 *   - {name: mine, file: runs/mine.trec, task: NanoSciFact}   # file relative to the spec
 * }</pre>
 *
 * @param name the job's name
 * @param file the spec file (for messages)
 * @param yaml the spec's text
 * @param taskSetNames the task set files as written in the spec
 * @param taskSets task set spec files, resolved against the spec's folder (a local run reads them;
 *     the eval service never does: its clients send the task sets with the job)
 * @param taskFilter task names to keep; empty keeps every task
 * @param retrievers what runs over whole corpora
 * @param rerankers reranker ids ({@code dense:MODEL}, {@code sparse:MODEL}, {@code
 *     multivector:MODEL} or a cross-encoder id) rescoring candidate sets
 * @param candidateDenseModel the dense model of the hybrid candidate set
 * @param candidateSets "hybrid" and/or "bm25"
 * @param similarity "cosine", "dot" or "best"
 * @param lightHybridDenseWeight the dense weight of LightRetriever's hybrid
 * @param lightHybridFusion how LightRetriever's hybrid fuses its sides: "minmax" (normalized
 *     interpolation, the default) or an RRF fusion variant, e.g. "rrf_k60" ({@link HybridFusion})
 * @param topK depth of stored rankings
 * @param positions how cells of tasks with answer spans are analysed for position bias
 * @param latencyConcurrency {@code latency: {concurrency: N}}: the queries in flight when each
 *     cell's latency is measured concurrently, 1..{@link LatencyProbe#MAX_CONCURRENCY} (default
 *     {@link LatencyProbe#CONCURRENCY}); stored with the cells, not part of their fingerprints
 * @param shards {@code shards: K}: each collection of the job split into K shards, 1..{@value
 *     #MAX_SHARDS} (default 1), searched as one (the same rankings, so not part of the cells'
 *     fingerprints)
 * @param replicas {@code replicas: R}: each shard kept as R copies on distinct index pods,
 *     1..{@value dev.tenbin.client.index.ShardedCollection#MAX_REPLICAS} (default 1); searches go
 *     to one live copy, a copy whose pod is lost is routed around (the same rankings, so not part
 *     of the cells' fingerprints)
 */
public record JobSpec(
    String name,
    Path file,
    String yaml,
    List<String> taskSetNames,
    List<Path> taskSets,
    List<String> taskFilter,
    List<RetrieverEntry> retrievers,
    List<String> rerankers,
    String candidateDenseModel,
    List<String> candidateSets,
    String similarity,
    double lightHybridDenseWeight,
    String lightHybridFusion,
    int topK,
    PositionSettings positions,
    int latencyConcurrency,
    int shards,
    int replicas) {

  /** The most shards a collection of a job may be split into. */
  public static final int MAX_SHARDS = dev.tenbin.client.index.ShardedCollection.MAX_SHARDS;

  /** The most replicas a shard of a job may have. */
  public static final int MAX_REPLICAS = dev.tenbin.client.index.ShardedCollection.MAX_REPLICAS;

  /** The settings families plan and run with. */
  public JobSettings settings() {
    return new JobSettings(
        topK,
        similarity,
        candidateSets,
        lightHybridFusion,
        lightHybridDenseWeight,
        latencyConcurrency,
        shards,
        replicas);
  }

  /** This spec with other position settings. */
  public JobSpec withPositions(PositionSettings value) {
    return with(value, shards, replicas);
  }

  /**
   * This spec with its collections split into {@code value} shards when it has no {@code shards:}
   * of its own (a service's default); a spec that names its shards keeps them.
   */
  public JobSpec withDefaultShards(int value) {
    if (value == shards || names("shards")) {
      return this;
    }
    return with(positions, value, replicas);
  }

  /**
   * This spec with each shard kept as {@code value} replicas when it has no {@code replicas:} of
   * its own (a service's default); a spec that names its replicas keeps them.
   */
  public JobSpec withDefaultReplicas(int value) {
    if (value == replicas || names("replicas")) {
      return this;
    }
    return with(positions, shards, value);
  }

  /** This spec with these position settings, shards and replicas, everything else as it is. */
  private JobSpec with(PositionSettings newPositions, int newShards, int newReplicas) {
    return new JobSpec(
        name,
        file,
        yaml,
        taskSetNames,
        taskSets,
        taskFilter,
        retrievers,
        rerankers,
        candidateDenseModel,
        candidateSets,
        similarity,
        lightHybridDenseWeight,
        lightHybridFusion,
        topK,
        newPositions,
        latencyConcurrency,
        newShards,
        newReplicas);
  }

  /** Whether the spec's YAML has the top-level key {@code key}. */
  private boolean names(String key) {
    try {
      return YAML.readTree(yaml).has(key);
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException("cannot read the spec " + file + " again", e);
    }
  }

  /**
   * A retriever and the variants to evaluate; empty variants means the family's automatic set.
   *
   * @param bm25 BM25's k1 / b for a {@code bm25} entry ({@code {retriever: bm25, k1: 1.2, b:
   *     0.75}}); {@link Bm25Settings#DEFAULTS} otherwise
   */
  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

  private static final int MAX_NAME = 200;
  private static final int MAX_MESSAGE = 600;
  private static final Set<String> KEYS =
      Set.of(
          "name",
          "task_sets",
          "tasks",
          "retrievers",
          "rerankers",
          "candidates",
          "similarity",
          "light_hybrid_dense_weight",
          "light_hybrid_fusion",
          "top_k",
          "positions",
          "price",
          "measures",
          "latency",
          "shards",
          "replicas",
          "runs");

  /** Reads and checks a spec file; every problem names the YAML field. */
  public static JobSpec read(Path file) {
    if (!Files.isRegularFile(file)) {
      throw new InvalidInputException(
          "SPEC", "job spec " + file + " does not exist or is not a file");
    }
    try {
      return parse(Files.readString(file), file);
    } catch (IOException e) {
      throw new InvalidInputException(
          "SPEC", "cannot read job spec " + file + ": " + e.getMessage());
    }
  }

  /** Parses spec text; {@code file} locates relative task set paths. */
  public static JobSpec parse(String yaml, Path file) {
    JsonNode root;
    try {
      root = YamlErrors.readTree(YAML, yaml);
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw new InvalidInputException(
          "SPEC", "job spec " + file + " is not valid YAML: " + YamlErrors.describe(e));
    }
    if (root == null || !root.isObject()) {
      throw error(file, "", "the job spec must be a YAML mapping");
    }
    for (Iterator<String> names = root.fieldNames(); names.hasNext(); ) {
      String key = names.next();
      if (!KEYS.contains(key)) {
        throw error(
            file,
            SafeText.escaped(key, SafeText.MAX_QUOTED_CHARS),
            "unknown field; expected one of " + new java.util.TreeSet<>(KEYS));
      }
    }
    Path base = file.toAbsolutePath().getParent();
    String name = text(file, root, "name", fileStem(file));
    if (name.length() > MAX_NAME) {
      throw error(file, "name", "longer than " + MAX_NAME + " characters");
    }
    List<String> taskSetNames = strings(file, root, "task_sets");
    List<Path> taskSets = new ArrayList<>();
    for (int i = 0; i < taskSetNames.size(); i++) {
      try {
        taskSets.add(base.resolve(taskSetNames.get(i)).normalize());
      } catch (java.nio.file.InvalidPathException e) {
        throw error(
            file,
            "task_sets[" + i + "]",
            SafeText.quote(taskSetNames.get(i)) + " is not a file path");
      }
    }
    if (taskSets.isEmpty()) {
      throw error(file, "task_sets", "name at least one task set file");
    }
    List<RetrieverEntry> retrievers = new ArrayList<>();
    JsonNode retrieverNodes = root.path("retrievers");
    if (!retrieverNodes.isMissingNode() && !retrieverNodes.isArray()) {
      throw error(file, "retrievers", "must be a list");
    }
    for (int i = 0; i < retrieverNodes.size(); i++) {
      retrievers.add(retriever(file, "retrievers[" + i + "]", retrieverNodes.get(i)));
    }
    List<String> rerankers = strings(file, root, "rerankers");
    JsonNode candidates = root.path("candidates");
    String candidateModel = candidates.path("dense_model").asText("");
    List<String> sets =
        candidates.has("sets")
            ? strings(file, candidates, "sets", "candidates.sets")
            : List.of("hybrid");
    for (int i = 0; i < sets.size(); i++) {
      if (!sets.get(i).equals("hybrid") && !sets.get(i).equals("bm25")) {
        throw error(
            file,
            "candidates.sets[" + i + "]",
            "expected hybrid or bm25, got " + SafeText.quote(sets.get(i)));
      }
    }
    if (!rerankers.isEmpty() && candidateModel.isBlank()) {
      throw error(
          file,
          "candidates.dense_model",
          "rerankers need the candidate sets' dense model (candidates: {dense_model: MODEL})");
    }
    if (retrievers.isEmpty() && rerankers.isEmpty()) {
      throw error(file, "retrievers", "name at least one retriever or reranker");
    }
    String similarity = text(file, root, "similarity", "cosine").toLowerCase(Locale.ROOT);
    try {
      DenseSimilarities.parse("similarity", similarity);
    } catch (InvalidInputException e) {
      throw error(file, "similarity", e.getMessage());
    }
    importedRuns(file, root);
    if (!root.path("price").isMissingNode()) {
      try {
        Price.fromYaml(root.path("price"));
      } catch (InvalidInputException e) {
        throw error(file, "price", e.getMessage());
      }
    }
    try {
      MeasureSpecs.fromYaml(root.path("measures"));
    } catch (InvalidInputException e) {
      throw error(file, e.field(), e.getMessage());
    }
    double weight = root.path("light_hybrid_dense_weight").asDouble(0.5);
    if (!(weight >= 0 && weight <= 1)) {
      throw error(file, "light_hybrid_dense_weight", "must be within 0..1");
    }
    String lightFusion = text(file, root, "light_hybrid_fusion", HybridFusion.MINMAX);
    try {
      HybridFusion parsed = HybridFusion.parse(lightFusion);
      if (parsed.firstWeight() != null) {
        throw new InvalidInputException(
            "light_hybrid_fusion", "the weights come from light_hybrid_dense_weight");
      }
      lightFusion = parsed.name();
    } catch (InvalidInputException e) {
      throw error(file, "light_hybrid_fusion", e.getMessage());
    }
    int topK = root.path("top_k").asInt(100);
    if (topK < 1 || topK > 1000) {
      throw error(
          file,
          "top_k",
          "must be within 1..1000, got " + SafeText.quote(root.path("top_k").asText()));
    }
    return new JobSpec(
        name,
        file,
        yaml,
        taskSetNames,
        List.copyOf(taskSets),
        strings(file, root, "tasks"),
        List.copyOf(retrievers),
        rerankers,
        candidateModel,
        sets,
        similarity,
        weight,
        lightFusion,
        topK,
        positions(file, root.path("positions")),
        latencyConcurrency(file, root.path("latency")),
        shards(file, root.path("shards")),
        replicas(file, root.path("replicas")));
  }

  /** {@code replicas: R}: 1..{@link #MAX_REPLICAS}; 1 when absent. */
  private static int replicas(Path file, JsonNode node) {
    if (node.isMissingNode() || node.isNull()) {
      return 1;
    }
    if (!node.isIntegralNumber() || node.asLong() < 1 || node.asLong() > MAX_REPLICAS) {
      throw error(
          file,
          "replicas",
          "must be a whole number within 1.."
              + MAX_REPLICAS
              + ", got "
              + SafeText.quote(node.asText()));
    }
    return node.asInt();
  }

  /** {@code shards: K}: 1..{@link #MAX_SHARDS}; 1 when absent. */
  private static int shards(Path file, JsonNode node) {
    if (node.isMissingNode() || node.isNull()) {
      return 1;
    }
    if (!node.isIntegralNumber() || node.asLong() < 1 || node.asLong() > MAX_SHARDS) {
      throw error(
          file,
          "shards",
          "must be a whole number within 1.."
              + MAX_SHARDS
              + ", got "
              + SafeText.quote(node.asText()));
    }
    return node.asInt();
  }

  /**
   * {@code latency: {concurrency: N}}: the queries in flight of the concurrent latency probe, a
   * whole number within 1..{@link LatencyProbe#MAX_CONCURRENCY}; {@link LatencyProbe#CONCURRENCY}
   * when absent.
   */
  private static int latencyConcurrency(Path file, JsonNode node) {
    if (node.isMissingNode() || node.isNull()) {
      return LatencyProbe.CONCURRENCY;
    }
    if (!node.isObject()) {
      throw error(file, "latency", "expected {concurrency: N}");
    }
    for (Iterator<String> names = node.fieldNames(); names.hasNext(); ) {
      String key = names.next();
      if (!key.equals("concurrency")) {
        throw error(
            file,
            "latency." + SafeText.escaped(key, SafeText.MAX_QUOTED_CHARS),
            "unknown field; expected concurrency");
      }
    }
    Integer concurrency = integer(file, node, "concurrency", "latency.concurrency");
    if (concurrency == null) {
      return LatencyProbe.CONCURRENCY;
    }
    if (concurrency < 1 || concurrency > LatencyProbe.MAX_CONCURRENCY) {
      throw error(
          file,
          "latency.concurrency",
          "must be within 1.." + LatencyProbe.MAX_CONCURRENCY + ", got " + concurrency);
    }
    return concurrency;
  }

  private static PositionSettings positions(Path file, JsonNode node) {
    try {
      return PositionSettings.fromYaml(node);
    } catch (InvalidInputException e) {
      throw error(file, e.field(), e.getMessage());
    }
  }

  private static RetrieverEntry retriever(Path file, String field, JsonNode node) {
    String text;
    List<String> variants = new ArrayList<>();
    Bm25Settings bm25 = Bm25Settings.DEFAULTS;
    if (node.isTextual()) {
      text = node.asText();
    } else if (node.isObject() && node.has("hybrid")) {
      return hybrid(file, field, node);
    } else if (node.isObject()) {
      text = node.path("retriever").asText("");
      for (Iterator<String> names = node.fieldNames(); names.hasNext(); ) {
        String key = names.next();
        if (!List.of("retriever", "variants", "k1", "b").contains(key)) {
          throw error(
              file,
              field + "." + SafeText.escaped(key, SafeText.MAX_QUOTED_CHARS),
              "unknown field; expected retriever, variants, or k1 and b for bm25");
        }
      }
      variants.addAll(variantNames(file, node.path("variants"), field + ".variants"));
      if (node.has("k1") || node.has("b")) {
        bm25 = bm25Settings(file, field, node);
      }
    } else {
      throw error(
          file,
          field,
          "expected a retriever name, {retriever: NAME, variants: [...]} or {hybrid: {of: [...]}}");
    }
    RetrieverSpec spec;
    try {
      spec = Families.parse(text);
    } catch (InvalidInputException e) {
      throw error(file, field, e.getMessage());
    }
    for (int i = 0; i < variants.size(); i++) {
      String variant = variants.get(i);
      try {
        spec.family().checkVariant(field, variant);
      } catch (InvalidInputException e) {
        throw error(file, field + ".variants[" + i + "]", e.getMessage());
      }
    }
    if (!bm25.isDefault() && !spec.family().name().equals("bm25")) {
      throw error(file, field, "k1 and b are parameters of bm25 only");
    }
    return new RetrieverEntry(spec, List.copyOf(variants), bm25);
  }

  private static Bm25Settings bm25Settings(Path file, String field, JsonNode node) {
    float[] values = {Bm25Settings.DEFAULTS.k1(), Bm25Settings.DEFAULTS.b()};
    String[] keys = {"k1", "b"};
    for (int i = 0; i < keys.length; i++) {
      JsonNode value = node.path(keys[i]);
      if (value.isMissingNode()) {
        continue;
      }
      if (!value.isNumber()) {
        throw error(file, field + "." + keys[i], "must be a number");
      }
      values[i] = value.floatValue();
    }
    try {
      return new Bm25Settings(values[0], values[1]);
    } catch (InvalidInputException e) {
      throw error(file, field + "." + e.field(), e.getMessage());
    }
  }

  /**
   * A retriever's variant names: one name, a list of names and {@link DenseVariantGrid} grids, or
   * one grid, each grid expanded in place to its canonical names.
   */
  private static List<String> variantNames(Path file, JsonNode node, String field) {
    if (node.isMissingNode() || node.isNull()) {
      return List.of();
    }
    if (node.isObject()) {
      return grid(file, node, field);
    }
    if (node.isTextual()) {
      return List.of(node.asText().trim());
    }
    if (!node.isArray()) {
      throw error(file, field, "must be a list of variant names and grids, or one grid");
    }
    List<String> names = new ArrayList<>();
    for (int i = 0; i < node.size(); i++) {
      JsonNode item = node.get(i);
      if (item.isObject()) {
        names.addAll(grid(file, item, field + "[" + i + "]"));
      } else if (!item.isValueNode() || item.asText().isBlank()) {
        throw error(file, field + "[" + i + "]", "must be a non-empty name or a grid");
      } else {
        names.add(item.asText().trim());
      }
    }
    return names;
  }

  private static List<String> grid(Path file, JsonNode node, String field) {
    Map<String, List<String>> axes = new java.util.LinkedHashMap<>();
    for (Iterator<String> names = node.fieldNames(); names.hasNext(); ) {
      String axis = names.next();
      JsonNode values = node.get(axis);
      String axisField = field + "." + SafeText.escaped(axis, SafeText.MAX_QUOTED_CHARS);
      List<String> texts = new ArrayList<>();
      if (values.isValueNode() && !values.isNull()) {
        texts.add(values.asText());
      } else if (values.isArray()) {
        for (int i = 0; i < values.size(); i++) {
          if (!values.get(i).isValueNode() || values.get(i).isNull()) {
            throw error(file, axisField + "[" + i + "]", "must be a single value");
          }
          texts.add(values.get(i).asText());
        }
      } else {
        throw error(file, axisField, "must be a list of values");
      }
      axes.put(axis, texts);
    }
    try {
      return DenseVariantGrid.parse(axes, field).names();
    } catch (InvalidInputException e) {
      throw error(file, e.field(), e.getMessage());
    }
  }

  /**
   * {@code {hybrid: {of: [A, B, ...], fusion: rrf|minmax, k: 60, weight: 0.5}}}: the retriever
   * {@code hybrid:A+B} with the one fusion variant these name ({@link HybridFusion}).
   */
  private static RetrieverEntry hybrid(Path file, String field, JsonNode node) {
    if (node.size() != 1) {
      throw error(file, field, "a hybrid entry holds only hybrid: {of: [...], ...}");
    }
    JsonNode hybrid = node.get("hybrid");
    String at = field + ".hybrid";
    if (!hybrid.isObject()) {
      throw error(file, at, "expected {of: [A, B], fusion: rrf|minmax, k: 60, weight: 0.5}");
    }
    Set<String> keys = Set.of("of", "fusion", "k", "weight");
    for (Iterator<String> names = hybrid.fieldNames(); names.hasNext(); ) {
      String key = names.next();
      if (!keys.contains(key)) {
        throw error(
            file,
            at + "." + SafeText.escaped(key, SafeText.MAX_QUOTED_CHARS),
            "unknown field; expected one of " + new java.util.TreeSet<>(keys));
      }
    }
    List<String> components = strings(file, hybrid, "of", at + ".of");
    RetrieverSpec spec;
    try {
      spec = Families.parse("hybrid:" + String.join("+", components));
    } catch (InvalidInputException e) {
      throw error(file, at + ".of", e.getMessage());
    }
    String method = text(file, hybrid, "fusion", at + ".fusion", HybridFusion.RRF);
    Integer k = integer(file, hybrid, "k", at + ".k");
    Double weight = number(file, hybrid, "weight", at + ".weight");
    if (k != null && !method.equals(HybridFusion.RRF)) {
      throw error(file, at + ".k", "k is the RRF constant; fusion " + method + " takes none");
    }
    HybridFusion fusion;
    try {
      fusion = new HybridFusion(method, k == null ? HybridFusion.DEFAULT_K : k, weight);
    } catch (InvalidInputException e) {
      throw error(file, at + "." + e.field(), e.getMessage());
    }
    return new RetrieverEntry(spec, List.of(fusion.name()));
  }

  private static Integer integer(Path file, JsonNode root, String key, String field) {
    JsonNode node = root.path(key);
    if (node.isMissingNode() || node.isNull()) {
      return null;
    }
    if (!node.isIntegralNumber() || !node.canConvertToInt()) {
      throw error(file, field, "must be a whole number, got " + SafeText.quote(node.asText()));
    }
    return node.asInt();
  }

  private static Double number(Path file, JsonNode root, String key, String field) {
    JsonNode node = root.path(key);
    if (node.isMissingNode() || node.isNull()) {
      return null;
    }
    if (!node.isNumber()) {
      throw error(file, field, "must be a number, got " + SafeText.quote(node.asText()));
    }
    return node.asDouble();
  }

  private static String text(Path file, JsonNode root, String key, String fallback) {
    return text(file, root, key, key, fallback);
  }

  private static String text(Path file, JsonNode root, String key, String field, String fallback) {
    JsonNode node = root.path(key);
    if (node.isMissingNode() || node.isNull()) {
      return fallback;
    }
    if (!node.isValueNode()) {
      throw error(file, field, "must be a single value");
    }
    return node.asText();
  }

  private static List<String> strings(Path file, JsonNode root, String key) {
    return strings(file, root, key, key);
  }

  private static List<String> strings(Path file, JsonNode root, String key, String field) {
    JsonNode node = root.path(key);
    if (node.isMissingNode() || node.isNull()) {
      return List.of();
    }
    if (node.isTextual()) {
      return List.of(node.asText());
    }
    if (!node.isArray()) {
      throw error(file, field, "must be a list");
    }
    List<String> values = new ArrayList<>();
    for (int i = 0; i < node.size(); i++) {
      if (!node.get(i).isValueNode() || node.get(i).asText().isBlank()) {
        throw error(file, field + "[" + i + "]", "must be a non-empty name");
      }
      values.add(node.get(i).asText().trim());
    }
    return List.copyOf(values);
  }

  /**
   * A TREC run made elsewhere that a local job imports (as {@code tenbin import-run} does) after
   * its own cells: stored as the system {@code external:NAME} on the task.
   *
   * @param name one word, the system's name after {@code external:}
   * @param file the run file, resolved against the spec's folder
   * @param task the name of one of the job's tasks
   */
  public record ImportedRun(String name, Path file, String task) {}

  /**
   * The spec's {@code runs:} (a local {@code tenbin run} imports them; the eval service refuses).
   */
  public List<ImportedRun> importedRuns() {
    try {
      JsonNode root = YAML.readTree(yaml);
      return root == null ? List.of() : importedRuns(file, root);
    } catch (java.io.IOException e) {
      throw error(file, "runs", e.getMessage());
    }
  }

  private static List<ImportedRun> importedRuns(Path file, JsonNode root) {
    JsonNode runs = root.path("runs");
    if (runs.isMissingNode() || runs.isNull()) {
      return List.of();
    }
    if (!runs.isArray()) {
      throw error(file, "runs", "must be a list of {name, file, task}");
    }
    Path folder = file.toAbsolutePath().getParent();
    List<ImportedRun> entries = new ArrayList<>();
    Set<String> seen = new java.util.HashSet<>();
    for (int i = 0; i < runs.size(); i++) {
      JsonNode entry = runs.get(i);
      String field = "runs[" + i + "]";
      if (!entry.isObject()) {
        throw error(file, field, "must be {name: NAME, file: FILE, task: TASK}");
      }
      java.util.Iterator<String> keys = entry.fieldNames();
      while (keys.hasNext()) {
        String key = keys.next();
        if (!Set.of("name", "file", "task").contains(key)) {
          throw error(file, field + "." + key, "is not a field of a run (name, file, task)");
        }
      }
      String name = entry.path("name").asText("");
      String path = entry.path("file").asText("");
      String task = entry.path("task").asText("");
      if (name.isBlank() || name.codePoints().anyMatch(Character::isWhitespace)) {
        throw error(file, field + ".name", "must be one word, got '" + name + "'");
      }
      if (path.isBlank()) {
        throw error(file, field + ".file", "names the run file");
      }
      if (task.isBlank()) {
        throw error(file, field + ".task", "names one of the job's tasks");
      }
      if (!seen.add(name + "\u0000" + task)) {
        throw error(file, field, "imports " + name + " on " + task + " a second time");
      }
      entries.add(
          new ImportedRun(name, folder == null ? Path.of(path) : folder.resolve(path), task));
    }
    return List.copyOf(entries);
  }

  private static InvalidInputException error(Path file, String field, String message) {
    return new InvalidInputException(
        field.isEmpty() ? "SPEC" : field,
        "job spec "
            + file
            + (field.isEmpty() ? "" : ", field " + field)
            + ": "
            + SafeText.escaped(message, MAX_MESSAGE));
  }

  private static String fileStem(Path file) {
    String name = file.getFileName().toString();
    int dot = name.lastIndexOf('.');
    return dot > 0 ? name.substring(0, dot) : name;
  }
}
