package dev.tenbin.eval.export;

import dev.tenbin.core.InvalidInputException;
import dev.tenbin.eval.store.CellRecord;
import java.util.List;
import java.util.function.Predicate;

/**
 * Which stored cell of a job to pick: either by a prefix of its fingerprint, or by system and task,
 * optionally narrowed by variant and mode. Exactly one cell must match; otherwise the error lists
 * the candidates so the user can narrow the selection.
 *
 * @param fingerprintPrefix hex prefix of the fingerprint, or null
 * @param system e.g. "bm25" or "dense:bge-small-en-v1.5", or null
 * @param task the task name, or null
 * @param variant the variant, or null for any
 * @param mode the mode, or null for any
 */
public record CellSelection(
    String fingerprintPrefix, String system, String task, String variant, String mode) {
  private static final int LISTED = 20;

  public static CellSelection byFingerprint(String prefix) {
    return new CellSelection(prefix, null, null, null, null);
  }

  public static CellSelection bySystem(String system, String task, String variant, String mode) {
    return new CellSelection(null, system, task, variant, mode);
  }

  /**
   * The one cell of {@code cells} this selection names.
   *
   * @throws InvalidInputException when the selection is malformed, matches nothing or matches more
   *     than one cell (the message lists the candidates)
   */
  public CellRecord select(List<CellRecord> cells) {
    Predicate<CellRecord> matches = predicate();
    List<CellRecord> matching = cells.stream().filter(matches).toList();
    String field = fingerprintPrefix != null ? "--cell" : "--system";
    if (matching.size() == 1) {
      return matching.getFirst();
    }
    if (matching.isEmpty()) {
      throw new InvalidInputException(
          field,
          "no stored cell matches "
              + describe()
              + "; the job holds "
              + cells.size()
              + " cells:"
              + list(cells));
    }
    throw new InvalidInputException(
        field,
        describe()
            + " matches "
            + matching.size()
            + " cells; narrow it with --variant/--mode or a longer --cell prefix:"
            + list(matching));
  }

  private Predicate<CellRecord> predicate() {
    if (fingerprintPrefix != null) {
      if (system != null || task != null || variant != null || mode != null) {
        throw new InvalidInputException(
            "--cell", "give either --cell or --system/--task, not both");
      }
      if (!fingerprintPrefix.matches("[0-9a-f]{1,64}")) {
        throw new InvalidInputException(
            "--cell", "--cell '" + fingerprintPrefix + "' is not a hex fingerprint prefix");
      }
      return cell -> cell.fingerprint().startsWith(fingerprintPrefix);
    }
    if (system == null || task == null) {
      throw new InvalidInputException(
          "--system", "name the cell: --cell FINGERPRINT_PREFIX, or --system S --task T");
    }
    return cell ->
        cell.key().system().name().equals(system)
            && cell.key().task().task().equals(task)
            && (variant == null || cell.key().variant().equals(variant))
            && (mode == null || cell.key().mode().wireName().equals(mode));
  }

  private String describe() {
    if (fingerprintPrefix != null) {
      return "--cell " + fingerprintPrefix;
    }
    return "--system "
        + system
        + " --task "
        + task
        + (variant == null ? "" : " --variant " + variant)
        + (mode == null ? "" : " --mode " + mode);
  }

  private static String list(List<CellRecord> cells) {
    StringBuilder out = new StringBuilder();
    for (CellRecord cell : cells.subList(0, Math.min(LISTED, cells.size()))) {
      out.append("\n  ").append(cell.fingerprint(), 0, 12).append("  ").append(cell.key().label());
    }
    if (cells.size() > LISTED) {
      out.append("\n  ... and ").append(cells.size() - LISTED).append(" more");
    }
    return out.toString();
  }
}
