package dev.tenbin.eval.store;

import dev.tenbin.eval.RunMode;

/**
 * What one cell of a job evaluates: a model of a family, in one efficiency variant and mode, on one
 * task of a benchmark.
 *
 * @param benchmark the task set's name, e.g. "NanoBEIR-en"
 * @param dataset the dataset a task belongs to; several tasks (one per language) may share one,
 *     which is what hierarchical macro averaging groups by. Equal to {@code task} for monolingual
 *     sets
 * @param task the task's name, unique within the benchmark, e.g. "NanoSciFact" or "xquad-de"
 * @param language ISO 639-1 code of the task
 * @param domain the task's domain category, e.g. "science"; "" when the spec names none
 * @param model the model id ("bm25" for BM25), e.g. "bge-small-en-v1.5"
 * @param family bm25, dense, light, light-sparse, light-hybrid, sparse, multivector, rerank-dense,
 *     rerank-cross, ...
 * @param variant "base", "int8", "binary_rescore", "truncate256", "sparse_q64_d256", ...
 * @param mode over the whole corpus or a stored candidate set; stored and hashed as its {@linkplain
 *     RunMode#wireName() wire name} ("retrieval", "rerank", "rerank_without_safeguard")
 */
public record CellKey(
    String benchmark,
    String dataset,
    String task,
    String language,
    String domain,
    String model,
    String family,
    String variant,
    RunMode mode) {

  /** The system a leaderboard row stands for: family and model, e.g. "dense:bge-small-en-v1.5". */
  public String system() {
    return system(family, model);
  }

  /**
   * The system of a cell family and model, as its {@linkplain dev.tenbin.eval.family.Families
   * retrieval family} names it ("bm25" has no model); other cell families (light-sparse,
   * rerank-dense, ...) are "family:model".
   */
  public static String system(String family, String model) {
    return dev.tenbin.eval.family.Families.named(family)
        .map(f -> f.system(model))
        .orElse(family + ":" + model);
  }

  /**
   * A short human label, e.g. "dense:bge-small-en-v1.5/int8 on NanoBEIR-en/NanoSciFact
   * (retrieval)".
   */
  public String label() {
    return system()
        + "/"
        + variant
        + " on "
        + benchmark
        + "/"
        + task
        + " ("
        + mode.wireName()
        + ")";
  }
}
