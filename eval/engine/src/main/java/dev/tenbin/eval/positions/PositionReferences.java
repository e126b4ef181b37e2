package dev.tenbin.eval.positions;

import dev.tenbin.eval.result.RankingMode;
import dev.tenbin.eval.store.CellKey;
import dev.tenbin.eval.store.CellRecord;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The one rule for the reference system of position analyses: per task, the cell of the named
 * system ({@code bm25}, {@code dense:MODEL}, as {@link CellKey#system()} writes it) in its {@code
 * base} variant over the whole corpus; every analysis of that task gets each bucket's {@code
 * reference_pearson} against it ({@link PositionAnalyzer#withReference}). A task without such a
 * cell keeps its analyses without reference. Of several cells with one key (a job folder that kept
 * the cells of an older scoring revision), the newest counts.
 */
public final class PositionReferences {
  private PositionReferences() {}

  /** A stored analysis and the cell it belongs to. */
  public record Analysed(CellRecord cell, PositionAnalysis analysis) {}

  /** Whether a run of {@code system}, {@code variant} and {@code mode} is the reference. */
  public static boolean isReference(
      String reference, String system, String variant, RankingMode mode) {
    return system.equals(reference) && variant.equals("base") && mode == RankingMode.RETRIEVAL;
  }

  /**
   * The newest cell of each key that carries an analysis, in the order of {@code cells}, with
   * reference correlations against {@code reference}'s cell of the same task.
   */
  public static List<Analysed> analyses(List<CellRecord> cells, String reference) {
    Map<CellKey, CellRecord> newestOfKey = new LinkedHashMap<>();
    for (CellRecord cell : cells) {
      if (StoredPositions.of(cell).isPresent()) {
        newestOfKey.merge(
            cell.key(), cell, (old, fresh) -> NEWEST.compare(fresh, old) > 0 ? fresh : old);
      }
    }
    Map<String, PositionAnalysis> all = byFingerprint(newestOfKey.values(), reference);
    List<Analysed> out = new ArrayList<>();
    for (CellRecord cell : newestOfKey.values()) {
      out.add(new Analysed(cell, all.get(cell.fingerprint())));
    }
    return out;
  }

  /**
   * The analysis of every cell of {@code cells} that carries one, by fingerprint, with reference
   * correlations against the newest {@code reference} cell of its task.
   */
  public static Map<String, PositionAnalysis> byFingerprint(
      java.util.Collection<CellRecord> cells, String reference) {
    Map<String, CellRecord> references = new LinkedHashMap<>();
    for (CellRecord cell : cells) {
      CellKey key = cell.key();
      if (isReference(reference, key.system().name(), key.variant(), key.mode())
          && StoredPositions.of(cell).isPresent()) {
        references.merge(
            taskOf(key), cell, (old, fresh) -> NEWEST.compare(fresh, old) > 0 ? fresh : old);
      }
    }
    Map<String, PositionAnalysis> out = new LinkedHashMap<>();
    for (CellRecord cell : cells) {
      var analysis = StoredPositions.of(cell);
      if (analysis.isEmpty()) {
        continue;
      }
      CellRecord referenceCell = references.get(taskOf(cell.key()));
      out.put(
          cell.fingerprint(),
          referenceCell == null
              ? analysis.get()
              : PositionAnalyzer.withReference(
                  analysis.get(), reference, StoredPositions.of(referenceCell).orElseThrow()));
    }
    return out;
  }

  private static final Comparator<CellRecord> NEWEST =
      Comparator.comparing((CellRecord c) -> c.finishedAt() == null ? "" : c.finishedAt())
          .thenComparing(CellRecord::fingerprint);

  private static String taskOf(CellKey key) {
    return key.task().benchmark() + "\u0000" + key.task().task();
  }
}
