package dev.tenbin.eval.testing;

import dev.tenbin.eval.result.RankingMode;
import dev.tenbin.eval.store.CellKey;
import dev.tenbin.eval.store.SystemRef;
import dev.tenbin.eval.store.TaskRef;

/**
 * Cell keys for tests, built from named parts with defaults: task "t" of benchmark "bench" in
 * English, BM25 with its default parameters, variant base, retrieval. Systems are named as stored
 * cells name them ({@link SystemRef#stored}).
 */
public final class CellKeys {
  private CellKeys() {}

  /** A builder with the defaults. */
  public static Builder key() {
    return new Builder();
  }

  /** A cell key's parts, each with a default. */
  public static final class Builder {
    private String benchmark = "bench";
    private String dataset;
    private String task = "t";
    private String language = "en";
    private String domain = "";
    private String family = "bm25";
    private String model = "";
    private String variant = "base";
    private RankingMode mode = RankingMode.RETRIEVAL;

    private Builder() {}

    public Builder benchmark(String value) {
      benchmark = value;
      return this;
    }

    /** The dataset; the task's name when not set. */
    public Builder dataset(String value) {
      dataset = value;
      return this;
    }

    public Builder task(String value) {
      task = value;
      return this;
    }

    public Builder language(String value) {
      language = value;
      return this;
    }

    public Builder domain(String value) {
      domain = value;
      return this;
    }

    /** The cell family and model, e.g. ("dense", "bge-small-en-v1.5"). */
    public Builder system(String cellFamily, String cellModel) {
      family = cellFamily;
      model = cellModel;
      return this;
    }

    public Builder variant(String value) {
      variant = value;
      return this;
    }

    public Builder mode(RankingMode value) {
      mode = value;
      return this;
    }

    public CellKey build() {
      return new CellKey(
          new TaskRef(benchmark, dataset == null ? task : dataset, task, language, domain),
          SystemRef.stored(family, model),
          variant,
          mode);
    }
  }
}
