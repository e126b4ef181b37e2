package dev.tenbin.eval.export;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tenbin.eval.result.RankingMode;
import dev.tenbin.eval.store.CellRecord;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * A stored cell as an MTEB result file, the format of the {@code embeddings-benchmark/results}
 * repository:
 *
 * <pre>{@code
 * {"dataset_revision": "<dataset_sha>", "task_name": "<task>", "mteb_version": "tenbin <version>",
 *  "scores": {"test": [{"ndcg_at_10": 0.71, "recall_at_100": 0.93, ..., "main_score": 0.71,
 *                       "hf_subset": "default", "languages": ["eng-Latn"]}]},
 *  "evaluation_time": 12.3, "kg_co2_emissions": null}
 * }</pre>
 *
 * Metrics keep their stored values (fractions, as MTEB writes them) under MTEB's names ({@code
 * ndcg@10} is {@code ndcg_at_10}); {@code main_score} is nDCG@10, MTEB's for retrieval. The
 * revision is the cell's dataset fingerprint; the split is always {@code test}, as MTEB's readers
 * expect; the evaluation time is the cell's encode, index, search and rerank time in seconds.
 * {@link #relativePath} lays several cells out as {@code <system>/<variant>/<Task>.json}, the
 * {@code <model>/<revision>/<Task>.json} layout that {@code tenbin report --official DIR} reads
 * back ({@code dev.tenbin.eval.aggregate.MtebResults}).
 */
public final class MtebExport {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final List<String> TIMINGS =
      List.of("document_encode_ms", "query_encode_ms", "index_ms", "search_ms", "rerank_ms");

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
    root.put("mteb_version", "tenbin " + cell.versions().getOrDefault("tenbin_version", ""));
    ObjectNode scores = root.putObject("scores").putArray("test").addObject();
    cell.metrics()
        .forEach((name, value) -> scores.put(name.replace("@", "_at_"), value.doubleValue()));
    Double main = cell.metrics().get("ndcg@10");
    if (main != null) {
      scores.put("main_score", main.doubleValue());
    }
    scores.put("hf_subset", "default");
    scores.putArray("languages").add(language(cell.key().task().language()));
    double millis = 0;
    for (String timing : TIMINGS) {
      millis += cell.timings().getOrDefault(timing, 0.0);
    }
    root.put("evaluation_time", millis / 1000);
    root.putNull("kg_co2_emissions");
    return root;
  }

  /**
   * Where the cell goes in a results folder: {@code <system>/<variant>/<Task>.json}, the system
   * with ':' and '/' as "__" ({@code dense__bge-small-en-v1.5}), a reranking mode appended to the
   * variant.
   */
  public static Path relativePath(CellRecord cell) {
    String variant =
        cell.key().mode() == RankingMode.RETRIEVAL
            ? cell.key().variant()
            : cell.key().variant() + "_" + cell.key().mode().wireName();
    return Path.of(
        safe(cell.key().system().name().replace(":", "__").replace("/", "__")),
        safe(variant),
        safe(cell.key().task().task()) + ".json");
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
