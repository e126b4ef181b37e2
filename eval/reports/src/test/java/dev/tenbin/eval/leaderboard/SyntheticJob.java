package dev.tenbin.eval.leaderboard;

import static dev.tenbin.eval.testing.SyntheticCells.cell;

import dev.tenbin.eval.store.CellRecord;
import dev.tenbin.eval.testing.SyntheticCells;
import java.util.ArrayList;
import java.util.List;

/**
 * A realistic small job: BM25 and two dense models (one with an awkward name) in several variants,
 * on an English benchmark of three tasks and a bilingual benchmark whose xquad dataset has an
 * English and a German task. Public for the tests of the pages over many jobs.
 */
public final class SyntheticJob {
  /** A model name that must be escaped everywhere. */
  public static final String AWKWARD_MODEL = "evil<b>&\"model";

  public static final String AWKWARD_SYSTEM = "dense:" + AWKWARD_MODEL;

  record Task(
      String benchmark,
      String dataset,
      String task,
      String language,
      String domain,
      double queryWords,
      double docWords) {}

  static final List<Task> TASKS =
      List.of(
          new Task("NanoBEIR-en", "NanoSciFact", "NanoSciFact", "en", "science", 12, 210),
          new Task("NanoBEIR-en", "NanoFiQA", "NanoFiQA", "en", "finance", 9, 130),
          new Task("NanoBEIR-en", "NanoArguAna", "NanoArguAna", "en", "argument", 190, 160),
          new Task("MLQA-mini", "xquad", "xquad-en", "en", "wikipedia", 11, 140),
          new Task("MLQA-mini", "xquad", "xquad-de", "de", "wikipedia", 10, 150));

  private SyntheticJob() {}

  public static List<CellRecord> cells() {
    List<CellRecord> cells = new ArrayList<>();
    for (int t = 0; t < TASKS.size(); t++) {
      double wobble = 0.01 * ((t * 7) % 5);
      add(cells, t, "bm25", "base", 0.40 + wobble, 0, null, null, 0, 900, 0);
      add(
          cells,
          t,
          "dense:bge-small-en-v1.5",
          "base",
          0.55 + wobble,
          384,
          33e6,
          1536.0,
          2400,
          350,
          0);
      add(
          cells,
          t,
          "dense:bge-small-en-v1.5",
          "int8",
          0.545 + wobble,
          384,
          33e6,
          384.0,
          2400,
          180,
          0);
      add(
          cells,
          t,
          "dense:bge-small-en-v1.5",
          "binary_rescore",
          0.53 + wobble,
          384,
          33e6,
          48.0,
          2400,
          90,
          0);
      add(cells, t, AWKWARD_SYSTEM, "base", 0.60 + wobble, 768, 110e6, 3072.0, 6100, 700, 0);
      // a tie range of 0.05 (5 points) on one task, wider than the gap to its neighbours
      add(
          cells,
          t,
          AWKWARD_SYSTEM,
          "int8",
          0.595 + wobble,
          768,
          110e6,
          768.0,
          6100,
          380,
          t == 0 ? 0.05 : 0);
      if (t != 4) {
        // no German run: listed unranked, 4 of 5 tasks
        add(cells, t, "dense:e5-small", "base", 0.50 + wobble, 384, 33e6, 1536.0, 2300, 340, 0);
      }
    }
    return cells;
  }

  private static void add(
      List<CellRecord> cells,
      int t,
      String system,
      String variant,
      double ndcg,
      double dimension,
      Double parameters,
      Double bytes,
      double encodeUs,
      double searchUs,
      double tieRange) {
    Task task = TASKS.get(t);
    SyntheticCells cell =
        cell(task.benchmark(), task.task(), system, variant, ndcg)
            .dataset(task.dataset())
            .language(task.language())
            .domain(task.domain())
            .fact("num_queries", 50)
            .fact("num_documents", 5000)
            .fact("avg_query_tokens", task.queryWords())
            .fact("avg_document_tokens", task.docWords())
            .timing("per_query_search_us", searchUs)
            .tieRange(tieRange);
    if (encodeUs > 0) {
      cell.timing("per_query_encode_us", encodeUs);
    }
    if (dimension > 0) {
      cell.fact("dimension", dimension);
    }
    if (parameters != null) {
      cell.fact("parameters", parameters);
    }
    if (bytes != null) {
      cell.fact("bytes_per_vector", bytes);
    }
    if (variant.equals("base") && !system.equals("dense:e5-small")) {
      // measured with 4 queries in flight; the other rows' cells were stored before that
      cell.concurrentLatency(
          4,
          1.4 * (encodeUs + searchUs),
          3 * (encodeUs + searchUs),
          4e6 / (1.4 * (encodeUs + searchUs)));
    }
    cells.add(cell.build());
  }
}
