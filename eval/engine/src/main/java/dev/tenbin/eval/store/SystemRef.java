package dev.tenbin.eval.store;

import java.util.Objects;

/**
 * The system a cell evaluates: the cell family and model as stored, and the name a leaderboard row
 * stands for, as the retrieval family that planned the cell named it (e.g.
 * "dense:bge-small-en-v1.5", "bm25", "bm25:k1=1.2,b=0.75").
 *
 * @param family bm25, dense, light, light-sparse, light-hybrid, sparse, multivector, rerank-dense,
 *     rerank-cross, ...
 * @param model the model id; "" for BM25 with its default parameters
 * @param name the system's name
 */
public record SystemRef(String family, String model, String name) {
  public SystemRef {
    Objects.requireNonNull(family, "family");
    Objects.requireNonNull(model, "model");
    Objects.requireNonNull(name, "name");
  }

  /**
   * The system of a cell stored before cells carried their system's name: named as the retrieval
   * families named them then — the family alone for BM25 with its default parameters (model "" or
   * "bm25"), else "family:model".
   */
  public static SystemRef stored(String family, String model) {
    boolean defaultBm25 = family.equals("bm25") && (model.isEmpty() || model.equals("bm25"));
    return new SystemRef(family, model, defaultBm25 ? family : family + ":" + model);
  }
}
