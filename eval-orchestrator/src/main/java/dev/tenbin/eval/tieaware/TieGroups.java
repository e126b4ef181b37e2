package dev.tenbin.eval.tieaware;

import dev.tenbin.eval.metrics.ScoredDoc;
import java.util.ArrayList;
import java.util.List;

/**
 * The groups of equal scores of an ordered ranking, as {@code [start, end)} position ranges. Only
 * the stored list is considered: a tie that continues below its cut-off cannot be seen.
 */
public final class TieGroups {
  private final int[] starts;
  private final int size;

  private TieGroups(int[] starts, int size) {
    this.starts = starts;
    this.size = size;
  }

  /** Groups of a ranking ordered by score descending (equal scores are then adjacent). */
  public static TieGroups of(List<ScoredDoc> ordered) {
    List<Integer> starts = new ArrayList<>();
    for (int i = 0; i < ordered.size(); i++) {
      if (i == 0 || Double.compare(ordered.get(i).score(), ordered.get(i - 1).score()) != 0) {
        starts.add(i);
      }
    }
    return new TieGroups(starts.stream().mapToInt(Integer::intValue).toArray(), ordered.size());
  }

  /** Groups from explicit start positions (for tests and callers with their own grouping). */
  public static TieGroups fromStarts(int[] starts, int size) {
    return new TieGroups(starts.clone(), size);
  }

  public int count() {
    return starts.length;
  }

  public int start(int group) {
    return starts[group];
  }

  public int end(int group) {
    return group + 1 < starts.length ? starts[group + 1] : size;
  }

  public boolean hasTies() {
    return starts.length < size;
  }
}
