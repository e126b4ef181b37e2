package dev.tenbin.scoring.metrics;

import java.util.List;
import java.util.stream.IntStream;

/**
 * The groups of tied scores of an ordered ranking, as {@code [start, end)} ranges of positions.
 *
 * <p>Tie policy: two adjacent documents are tied when their scores are equal as doubles ({@code
 * ==}, so 0.0 and -0.0 tie, as they do for trec_eval's comparisons); FP32 scores widened to double
 * tie exactly when they tie as floats. Only adjacent documents are grouped, which in a ranking
 * sorted by score (Tenbin's rankings, and {@code RunOrder.TREC_EVAL}) groups every tie. Only the
 * stored list is seen: a tie that continues past its end (a top-100 cut in the middle of a group)
 * is treated as if the group ended with the list.
 */
public final class TieGroups {
  private final int[] starts;
  private final int size;

  private TieGroups(int[] starts, int size) {
    this.starts = starts;
    this.size = size;
  }

  /** The tie groups of a ranking ordered by score descending. */
  public static TieGroups of(List<ScoredDoc> ordered) {
    int[] starts =
        IntStream.range(0, ordered.size())
            .filter(i -> i == 0 || ordered.get(i).score() != ordered.get(i - 1).score())
            .toArray();
    return new TieGroups(starts, ordered.size());
  }

  /**
   * Groups from explicit start positions, for callers with their own grouping.
   *
   * @param starts strictly increasing, the first 0 (unless size is 0), all below size
   * @param size the number of positions
   */
  public static TieGroups fromStarts(int[] starts, int size) {
    boolean valid = size == 0 ? starts.length == 0 : starts.length > 0 && starts[0] == 0;
    for (int g = 1; valid && g < starts.length; g++) {
      valid = starts[g] > starts[g - 1] && starts[g] < size;
    }
    if (!valid) {
      throw new IllegalArgumentException("group starts must rise from 0 below " + size);
    }
    return new TieGroups(starts.clone(), size);
  }

  /** Number of groups (a document without a tie is a group of one). */
  public int count() {
    return starts.length;
  }

  /** First position of a group. */
  public int start(int group) {
    return starts[group];
  }

  /** One past the last position of a group. */
  public int end(int group) {
    return group + 1 < starts.length ? starts[group + 1] : size;
  }

  /** Number of positions. */
  public int size() {
    return size;
  }

  /** Whether any group holds two or more documents. */
  public boolean hasTies() {
    return starts.length < size;
  }
}
