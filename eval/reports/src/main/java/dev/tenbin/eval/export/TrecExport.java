package dev.tenbin.eval.export;

import dev.tenbin.eval.store.CellRecord;
import dev.tenbin.eval.store.StoredDoc;
import dev.tenbin.eval.store.StoredQuery;
import dev.tenbin.scoring.metrics.ScoredDoc;
import dev.tenbin.scoring.trec.TrecRunWriter;
import java.io.IOException;
import java.io.Writer;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A stored cell's rankings as a TREC run: queries in stored order, each query's documents by stored
 * rank, written by {@link TrecRunWriter} with tie-broken scores, so trec_eval orders the file as
 * the cell did (ties included) and scores it as Tenbin did; the stored cell keeps the true FP32
 * scores. Queries with an empty ranking have no line.
 */
public final class TrecExport {
  private TrecExport() {}

  /** Query id to ranking, rank 1 first. */
  public static Map<String, List<ScoredDoc>> run(CellRecord cell) {
    Map<String, List<ScoredDoc>> run = new LinkedHashMap<>();
    for (StoredQuery query : cell.queries()) {
      List<StoredDoc> docs = new ArrayList<>(query.docs());
      docs.sort(Comparator.comparingInt(StoredDoc::rank));
      List<ScoredDoc> ranking = new ArrayList<>(docs.size());
      for (StoredDoc doc : docs) {
        ranking.add(new ScoredDoc(doc.docId(), doc.score()));
      }
      if (!ranking.isEmpty()) {
        run.put(query.queryId(), ranking);
      }
    }
    return run;
  }

  /** The default run tag: system and variant, e.g. {@code dense:bge-small-en-v1.5/int8}. */
  public static String defaultTag(CellRecord cell) {
    return (cell.key().system().name() + "/" + cell.key().variant()).replaceAll("\\s", "_");
  }

  /** Writes the cell's run to {@code out} (left open). */
  public static void write(CellRecord cell, Writer out, String tag) throws IOException {
    TrecRunWriter.write(out, run(cell), tag);
  }
}
