package dev.tenbin.eval.warehouse;

import dev.tenbin.eval.store.CellRecord;
import dev.tenbin.eval.store.ResultStore;
import dev.tenbin.eval.testing.EvaluatedCells;
import java.nio.file.Path;

/** The cells the warehouse tests store, and job folders holding them. */
final class WarehouseJobs {
  private WarehouseJobs() {}

  static final CellRecord BM25 =
      EvaluatedCells.cell(
          EvaluatedCells.key("NanoSciFact", "bm25", "bm25", "base"),
          EvaluatedCells.QRELS,
          EvaluatedCells.run(0f));
  static final CellRecord DENSE =
      EvaluatedCells.cell(
          EvaluatedCells.key("NanoSciFact", "dense", "tiny", "int8"),
          EvaluatedCells.QRELS,
          EvaluatedCells.run(1f));
  static final CellRecord OTHER =
      EvaluatedCells.cell(
          EvaluatedCells.key("NanoFiQA", "dense", "tiny", "int8"),
          EvaluatedCells.QRELS,
          EvaluatedCells.run(2f));

  /** A job folder {@code parent/name} storing {@code cells}. */
  static Path job(Path parent, String name, CellRecord... cells) {
    ResultStore store = ResultStore.open(parent.resolve(name));
    for (CellRecord cell : cells) {
      store.append(cell);
    }
    return parent.resolve(name);
  }
}
