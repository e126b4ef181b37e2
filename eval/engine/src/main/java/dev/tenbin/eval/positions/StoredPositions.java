package dev.tenbin.eval.positions;

import com.fasterxml.jackson.core.type.TypeReference;
import dev.tenbin.eval.store.CellRecord;
import dev.tenbin.eval.store.ResultStore;
import java.util.Map;
import java.util.Optional;

/**
 * Where a cell keeps its position analysis: the {@code "positions"} entry of its diagnostics, as
 * the JSON of {@link PositionAnalysis}. Cells of tasks without spans have none.
 */
public final class StoredPositions {
  /** The diagnostics key. */
  public static final String KEY = "positions";

  private StoredPositions() {}

  /** The diagnostics value to store for {@code analysis}. */
  public static Map<String, Object> toDiagnostic(PositionAnalysis analysis) {
    return ResultStore.JSON.convertValue(analysis, new TypeReference<Map<String, Object>>() {});
  }

  /** The analysis stored with {@code cell}, if any. */
  public static Optional<PositionAnalysis> of(CellRecord cell) {
    if (cell.diagnostics() == null || cell.diagnostics().get(KEY) == null) {
      return Optional.empty();
    }
    return Optional.of(
        ResultStore.JSON.convertValue(cell.diagnostics().get(KEY), PositionAnalysis.class));
  }
}
