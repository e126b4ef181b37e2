package dev.tenbin.eval.export;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tenbin.eval.result.PhaseTimings;
import dev.tenbin.eval.result.RankingMode;
import dev.tenbin.eval.store.CellRecord;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Locale;
import java.util.Map;
import java.util.StringJoiner;
import java.util.TreeMap;

/**
 * A stored cell as an MTEB result file and its model's {@code model_meta.json}, laid out as the
 * {@code embeddings-benchmark/results} repository and mteb's own result cache lay them out: {@code
 * ORG__MODEL/REVISION/TASK.json} beside {@code ORG__MODEL/REVISION/model_meta.json}. The files
 * follow mteb's {@code TaskResult} and {@code ModelMeta} (mteb 2.20, checked by {@code
 * MtebSchemaTest} against a JSON Schema written from them) and carry only keys mteb reads:
 *
 * <pre>{@code
 * {"dataset_revision": "<dataset_sha>", "task_name": "<task>", "mteb_version": null,
 *  "scores": {"test": [{"ndcg_at_10": 0.71, "recall_at_100": 0.93, ..., "main_score": 0.71,
 *                       "hf_subset": "default", "languages": ["eng-Latn"]}]},
 *  "evaluation_time": 12.3, "kg_co2_emissions": null}
 * }</pre>
 *
 * Metrics keep their stored values (fractions, as MTEB writes them) under the names of mteb's
 * retrieval evaluator: {@code ndcg@10} is {@code ndcg_at_10}, {@code accuracy@k} (a relevant
 * document in the top k) is {@code hit_rate_at_k}; metrics mteb has no name for are left out.
 * {@code main_score} is nDCG@10, mteb's for retrieval. {@code mteb_version} is null: the result was
 * not computed by mteb, and mteb reads a null version as "unknown" (a text such as "tenbin 0.1.0"
 * fails its {@code packaging.Version}). The revision is the cell's dataset fingerprint; the split
 * is always {@code test}; the evaluation time is the cell's measured phases in seconds, each once
 * ({@link PhaseTimings#evaluationMs}: indexing with the documents' encode in it, the variant's own
 * indexing, the queries' encode, search and rerank).
 *
 * <p>Model names: a hub model keeps its {@code ORG/NAME}; the built-in models their hub names
 * ({@link #BUILT_IN}); anything else, BM25 included, is {@code tenbin/NAME}. A variant other than
 * {@code base} and a reranking mode are an experiment of the model, as mteb 2.x keeps them: {@code
 * experiment_kwargs} in {@code model_meta.json} ({@code {"variant": "int8"}}, with {@code "mode"}
 * for a reranking mode) and the files under {@code ORG__NAME/REVISION/experiments/EXPERIMENT/},
 * EXPERIMENT being mteb's name for those keywords ({@link #experimentName}: {@code variant_int8}).
 * The revision is the model's as Tenbin recorded it (a hub commit, a jar version), else {@code
 * no_revision_available}, mteb's own word for it. {@code tenbin report --official DIR} reads the
 * folder back, experiments included ({@code dev.tenbin.eval.aggregate.MtebResults}), naming an
 * experiment as mteb's {@code model_name_with_experiment} does: {@code bge-small-en-v1.5
 * (variant=int8)}.
 */
public final class MtebExport {
  private static final ObjectMapper JSON = new ObjectMapper();

  /** The experiment keyword of a variant other than base. */
  public static final String VARIANT_KEYWORD = "variant";

  /** The experiment keyword of a reranking mode. */
  public static final String MODE_KEYWORD = "mode";

  /** mteb's folder of a model revision's experiments. */
  public static final String EXPERIMENTS_FOLDER = "experiments";

  /**
   * Characters mteb replaces in an experiment's values ({@code
   * _serialize_experiment_kwargs_to_name}).
   */
  private static final String INVALID_IN_EXPERIMENT = "<>:\"|?*\\/\0";

  /** mteb hashes an experiment name longer than this. */
  private static final int EXPERIMENT_NAME_MAX = 200;

  /** The file beside a revision's results that describes its model. */
  public static final String MODEL_META_FILE = "model_meta.json";

  /** mteb's revision of a model whose revision is not known. */
  static final String NO_REVISION = "no_revision_available";

  /** The hub names of the models Tenbin ships. */
  static final Map<String, String> BUILT_IN =
      Map.of(
          "bge-small-en-v1.5", "BAAI/bge-small-en-v1.5",
          "bge-small-zh-v1.5", "BAAI/bge-small-zh-v1.5",
          "e5-small-v2", "intfloat/e5-small-v2",
          "all-minilm-l6-v2", "sentence-transformers/all-MiniLM-L6-v2");

  /** Tenbin metric prefixes to mteb's retrieval score names. */
  private static final Map<String, String> METRICS =
      Map.of(
          "ndcg", "ndcg",
          "recall", "recall",
          "precision", "precision",
          "map", "map",
          "mrr", "mrr",
          "accuracy", "hit_rate");

  /** Scripts of the languages Tenbin's analyzers know, for MTEB's "eng-Latn" language codes. */
  private static final Map<String, String> SCRIPTS =
      Map.ofEntries(
          Map.entry("ar", "Arab"),
          Map.entry("fa", "Arab"),
          Map.entry("zh", "Hans"),
          Map.entry("ja", "Jpan"),
          Map.entry("ko", "Hang"),
          Map.entry("ru", "Cyrl"),
          Map.entry("uk", "Cyrl"),
          Map.entry("bg", "Cyrl"),
          Map.entry("el", "Grek"),
          Map.entry("he", "Hebr"),
          Map.entry("hi", "Deva"),
          Map.entry("th", "Thai"));

  private MtebExport() {}

  /** The MTEB result object of {@code cell}. */
  public static ObjectNode toJson(CellRecord cell) {
    ObjectNode root = JSON.createObjectNode();
    root.put("dataset_revision", cell.versions().getOrDefault("dataset_sha", ""));
    root.put("task_name", cell.key().task().task());
    root.putNull("mteb_version");
    ObjectNode scores = root.putObject("scores").putArray("test").addObject();
    cell.metrics()
        .forEach(
            (name, value) -> {
              String mteb = mtebName(name);
              if (mteb != null) {
                scores.put(mteb, value.doubleValue());
              }
            });
    Double main = cell.metrics().get("ndcg@10");
    if (main != null) {
      scores.put("main_score", main.doubleValue());
    }
    scores.put("hf_subset", "default");
    scores.putArray("languages").add(language(cell.key().task().language()));
    root.put("evaluation_time", PhaseTimings.of(cell.timings()).evaluationMs() / 1000);
    root.putNull("kg_co2_emissions");
    return root;
  }

  /** "ndcg@10" as "ndcg_at_10", "accuracy@5" as "hit_rate_at_5"; null for a name mteb lacks. */
  static String mtebName(String metric) {
    int at = metric.indexOf('@');
    if (at < 0) {
      return null;
    }
    String prefix = METRICS.get(metric.substring(0, at));
    String cut = metric.substring(at + 1);
    return prefix == null || !cut.matches("[0-9]+") ? null : prefix + "_at_" + cut;
  }

  /**
   * The {@code model_meta.json} of the cell's model (mteb's {@code ModelMeta}): its name and
   * revision, parameters and dimension when stored, the similarity, ONNX as the framework, and the
   * model type; what Tenbin does not know is null.
   */
  public static ObjectNode modelMeta(CellRecord cell) {
    ObjectNode meta = JSON.createObjectNode();
    meta.put("name", modelName(cell));
    meta.put("revision", revision(cell));
    meta.putNull("release_date");
    meta.putNull("languages");
    Double parameters = cell.facts().get("parameters");
    if (parameters == null || parameters <= 0) {
      meta.putNull("n_parameters");
    } else {
      meta.put("n_parameters", parameters.longValue());
    }
    meta.putNull("memory_usage_mb");
    meta.putNull("max_tokens");
    Double dimension = cell.facts().get("dimension");
    if (dimension == null || dimension <= 0) {
      meta.putNull("embed_dim");
    } else {
      meta.put("embed_dim", dimension.intValue());
    }
    meta.putNull("license");
    meta.putNull("open_weights");
    meta.putNull("public_training_code");
    meta.putNull("public_training_data");
    ArrayNode framework = meta.putArray("framework");
    String family = cell.key().system().family();
    if (!family.equals("bm25")) {
      framework.add("ONNX");
    }
    Object similarity = cell.diagnostics() == null ? null : cell.diagnostics().get("similarity");
    if ("cosine".equals(similarity) || "dot".equals(similarity)) {
      meta.put("similarity_fn_name", (String) similarity);
    } else if (family.equals("multivector")) {
      meta.put("similarity_fn_name", "MaxSim");
    } else {
      meta.putNull("similarity_fn_name");
    }
    meta.putNull("use_instructions");
    meta.putNull("training_datasets");
    meta.putNull("loader");
    meta.putArray("modalities").add("text");
    meta.putArray("model_type").add(modelType(family, cell.key().mode()));
    Map<String, String> experiment = experimentKwargs(cell);
    if (experiment.isEmpty()) {
      meta.putNull("experiment_kwargs");
    } else {
      ObjectNode kwargs = meta.putObject("experiment_kwargs");
      experiment.forEach(kwargs::put);
    }
    return meta;
  }

  /**
   * The cell's experiment keywords, sorted: {@code variant} unless base, {@code mode} unless
   * retrieval; empty for a base retrieval cell.
   */
  public static Map<String, String> experimentKwargs(CellRecord cell) {
    Map<String, String> kwargs = new TreeMap<>();
    if (cell.key().mode() != RankingMode.RETRIEVAL) {
      kwargs.put(MODE_KEYWORD, cell.key().mode().wireName());
    }
    if (!cell.key().variant().equals("base")) {
      kwargs.put(VARIANT_KEYWORD, cell.key().variant());
    }
    return kwargs;
  }

  /**
   * mteb's folder name of experiment keywords ({@code _serialize_experiment_kwargs_to_name}):
   * {@code key_value} sorted by key and joined by "__", the characters {@code <>:"|?*\/} and NUL in
   * values as '_'; longer than 200 characters, or a key with such a character, {@code exp_} and the
   * first 16 hex digits of the name's SHA-256. Null for no keywords.
   */
  public static String experimentName(Map<String, String> kwargs) {
    if (kwargs.isEmpty()) {
      return null;
    }
    StringJoiner name = new StringJoiner("__");
    new TreeMap<>(kwargs).forEach((key, value) -> name.add(key + "_" + replaceInvalid(value)));
    String text = name.toString();
    if (text.length() > EXPERIMENT_NAME_MAX || hasInvalid(text)) {
      try {
        byte[] digest =
            MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
        return "exp_" + HexFormat.of().formatHex(digest).substring(0, 16);
      } catch (NoSuchAlgorithmException e) {
        throw new IllegalStateException("SHA-256 is missing", e);
      }
    }
    return text;
  }

  /**
   * Keywords as mteb's {@code model_name_with_experiment} shows them: {@code key=value} sorted by
   * key, joined by ", " ({@code mode=rerank, variant=int8}).
   */
  public static String experimentLabel(Map<String, String> kwargs) {
    StringJoiner label = new StringJoiner(", ");
    new TreeMap<>(kwargs).forEach((key, value) -> label.add(key + "=" + replaceInvalid(value)));
    return label.toString();
  }

  private static String replaceInvalid(String value) {
    StringBuilder out = new StringBuilder(value.length());
    for (char c : value.toCharArray()) {
      out.append(INVALID_IN_EXPERIMENT.indexOf(c) >= 0 ? '_' : c);
    }
    return out.toString();
  }

  private static boolean hasInvalid(String text) {
    return text.chars().anyMatch(c -> INVALID_IN_EXPERIMENT.indexOf(c) >= 0);
  }

  private static String modelType(String family, RankingMode mode) {
    if (mode != RankingMode.RETRIEVAL) {
      return "cross-encoder";
    }
    return switch (family) {
      case "bm25", "sparse", "sparse-bm25" -> "sparse";
      case "multivector" -> "late-interaction";
      case "hybrid" -> "hybrid";
      case "rerank" -> "cross-encoder";
      default -> "dense";
    };
  }

  /**
   * The model's mteb name, {@code ORG/NAME}: a hub model's own, a built-in model's hub name, else
   * {@code tenbin/NAME}. Variants and modes are experiments of it ({@link #experimentKwargs}).
   */
  static String modelName(CellRecord cell) {
    String model = cell.key().system().model();
    String source = cell.versions().getOrDefault("model_source", "");
    String name;
    if (source.startsWith("hub:") && source.indexOf('/') > 4) {
      name = source.substring(4).split("@", 2)[0];
    } else if (BUILT_IN.containsKey(model)) {
      name = BUILT_IN.get(model);
    } else {
      name = "tenbin/" + cell.key().system().name().replace(':', '-').replace('/', '-');
    }
    return name;
  }

  private static String revision(CellRecord cell) {
    String revision = cell.versions().get("model_revision");
    return revision == null || revision.isBlank() ? NO_REVISION : revision;
  }

  /**
   * Where the cell goes in a results folder: {@code ORG__NAME/REVISION/TASK.json}, the model name
   * with '/' as "__" as mteb's result cache writes it; an experiment's under {@code
   * ORG__NAME/REVISION/experiments/EXPERIMENT/TASK.json}.
   */
  public static Path relativePath(CellRecord cell) {
    return modelFolder(cell).resolve(safe(cell.key().task().task()) + ".json");
  }

  /**
   * The folder of the cell's model, revision and experiment: {@code ORG__NAME/REVISION}, or {@code
   * ORG__NAME/REVISION/experiments/EXPERIMENT} for a variant or a reranking mode.
   */
  public static Path modelFolder(CellRecord cell) {
    Path folder = Path.of(safe(modelName(cell).replace("/", "__")), safe(revision(cell)));
    String experiment = experimentName(experimentKwargs(cell));
    return experiment == null
        ? folder
        : folder.resolve(EXPERIMENTS_FOLDER).resolve(safe(experiment));
  }

  /** ISO 639-1 "en" as MTEB's "eng-Latn" (the ISO 639-3 code, and the script when known). */
  static String language(String code) {
    String iso3;
    try {
      iso3 = Locale.of(code).getISO3Language();
    } catch (java.util.MissingResourceException e) {
      iso3 = code;
    }
    if (iso3.isEmpty()) {
      iso3 = code;
    }
    return iso3 + "-" + SCRIPTS.getOrDefault(code, "Latn");
  }

  private static String safe(String name) {
    return name.replaceAll("[^A-Za-z0-9._=,-]", "_");
  }
}
