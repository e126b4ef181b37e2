package dev.tenbin.eval.warehouse;

import java.util.List;

/**
 * The DDL of the warehouse: its tables in load order and the views over them. See {@link Warehouse}
 * for what each table holds.
 */
final class WarehouseSchema {
  private WarehouseSchema() {}

  /** Table name and its {@code CREATE TABLE} statement, in the order the loader fills them. */
  record Table(String name, String ddl) {}

  static final List<Table> TABLES =
      List.of(
          new Table(
              "cells",
              """
              CREATE TABLE cells (
                fingerprint VARCHAR PRIMARY KEY,
                job_dir VARCHAR NOT NULL,
                format_version INTEGER NOT NULL,
                benchmark VARCHAR NOT NULL,
                dataset VARCHAR NOT NULL,
                task VARCHAR NOT NULL,
                language VARCHAR NOT NULL,
                domain VARCHAR NOT NULL,
                model VARCHAR NOT NULL,
                family VARCHAR NOT NULL,
                system VARCHAR NOT NULL,
                variant VARCHAR NOT NULL,
                mode VARCHAR NOT NULL,
                label VARCHAR NOT NULL,
                finished_at TIMESTAMP,
                num_queries INTEGER,
                num_documents INTEGER,
                stored_queries INTEGER NOT NULL)"""),
          new Table(
              "versions",
              "CREATE TABLE versions (fingerprint VARCHAR NOT NULL, name VARCHAR NOT NULL, value VARCHAR)"),
          new Table(
              "facts",
              "CREATE TABLE facts (fingerprint VARCHAR NOT NULL, name VARCHAR NOT NULL, value DOUBLE)"),
          new Table(
              "metrics",
              "CREATE TABLE metrics (fingerprint VARCHAR NOT NULL, metric VARCHAR NOT NULL, value DOUBLE)"),
          new Table(
              "tie_aware",
              """
              CREATE TABLE tie_aware (
                fingerprint VARCHAR NOT NULL, metric VARCHAR NOT NULL,
                expected DOUBLE, "min" DOUBLE, "max" DOUBLE, "range" DOUBLE, bias DOUBLE)"""),
          new Table(
              "timings",
              "CREATE TABLE timings (fingerprint VARCHAR NOT NULL, name VARCHAR NOT NULL, value DOUBLE)"),
          new Table(
              "diagnostics",
              "CREATE TABLE diagnostics (fingerprint VARCHAR NOT NULL, name VARCHAR NOT NULL, value VARCHAR)"),
          new Table(
              "query_metrics",
              "CREATE TABLE query_metrics (fingerprint VARCHAR NOT NULL, query_id VARCHAR NOT NULL, metric VARCHAR NOT NULL, value DOUBLE)"),
          new Table(
              "rankings",
              "CREATE TABLE rankings (fingerprint VARCHAR NOT NULL, query_id VARCHAR NOT NULL, rank INTEGER NOT NULL,"
                  + " doc_id VARCHAR NOT NULL, score DOUBLE NOT NULL)"),
          new Table(
              "positions",
              "CREATE TABLE positions (fingerprint VARCHAR NOT NULL, min_tokens INTEGER NOT NULL,"
                  + " max_tokens INTEGER, bin INTEGER NOT NULL, queries INTEGER NOT NULL,"
                  + " ndcg_at_10 DOUBLE, recall_at_100 DOUBLE)"),
          new Table(
              "position_buckets",
              "CREATE TABLE position_buckets (fingerprint VARCHAR NOT NULL, tokenizer VARCHAR NOT NULL,"
                  + " length_reference VARCHAR, min_count INTEGER NOT NULL, min_tokens INTEGER NOT NULL,"
                  + " max_tokens INTEGER, queries INTEGER NOT NULL, psi DOUBLE, slope DOUBLE,"
                  + " pearson DOUBLE, spearman DOUBLE, kendall DOUBLE, reference VARCHAR,"
                  + " reference_pearson DOUBLE)"));

  /** The metrics {@code cell_scores} pivots into columns: stored name to column name. */
  static final List<String[]> MAIN_METRICS =
      List.of(
          new String[] {"ndcg@10", "ndcg_at_10"},
          new String[] {"ndcg@100", "ndcg_at_100"},
          new String[] {"recall@10", "recall_at_10"},
          new String[] {"recall@100", "recall_at_100"},
          new String[] {"precision@10", "precision_at_10"},
          new String[] {"accuracy@1", "accuracy_at_1"},
          new String[] {"accuracy@10", "accuracy_at_10"},
          new String[] {"accuracy@100", "accuracy_at_100"},
          new String[] {"mrr@10", "mrr_at_10"},
          new String[] {"map@100", "map_at_100"});

  static List<String> views() {
    StringBuilder pivot = new StringBuilder();
    for (String[] metric : MAIN_METRICS) {
      pivot
          .append(",\n  max(m.value) FILTER (WHERE m.metric = '")
          .append(metric[0])
          .append("') AS ")
          .append(metric[1]);
    }
    String cellScores =
        "CREATE VIEW cell_scores AS\nSELECT c.fingerprint, c.benchmark, c.dataset, c.task, c.language, c.domain,"
            + " c.model, c.family, c.system, c.variant, c.mode, c.num_queries, c.num_documents"
            + pivot
            + ",\n  (SELECT t.\"range\" FROM tie_aware t WHERE t.fingerprint = c.fingerprint AND t.metric = 'ndcg@10')"
            + " AS ndcg_at_10_tie_range"
            + ",\n  (SELECT ti.value FROM timings ti WHERE ti.fingerprint = c.fingerprint AND ti.name = 'cell_ms') AS cell_ms"
            + "\nFROM cells c LEFT JOIN metrics m ON m.fingerprint = c.fingerprint"
            + "\nGROUP BY ALL";
    String systemSummary =
        """
        CREATE VIEW system_summary AS
        WITH per_dataset AS (
          SELECT benchmark, system, family, model, variant, mode, dataset,
                 avg(ndcg_at_10) AS ndcg_at_10, avg(recall_at_100) AS recall_at_100, count(*) AS tasks
          FROM cell_scores GROUP BY ALL)
        SELECT benchmark, system, family, model, variant, mode,
               sum(tasks)::BIGINT AS tasks, count(*) AS datasets,
               avg(ndcg_at_10) AS ndcg_at_10, avg(recall_at_100) AS recall_at_100
        FROM per_dataset GROUP BY ALL""";
    return List.of(cellScores, systemSummary);
  }
}
