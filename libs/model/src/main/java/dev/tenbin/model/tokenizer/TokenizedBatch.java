package dev.tenbin.model.tokenizer;

/**
 * Token ids of several texts, unpadded.
 *
 * @param ids per text, its token ids (special tokens included, truncated to the max length)
 * @param truncated per text, whether tokens were cut
 */
public record TokenizedBatch(long[][] ids, boolean[] truncated) {
  public int size() {
    return ids.length;
  }

  public int tokens() {
    int total = 0;
    for (long[] row : ids) {
      total += row.length;
    }
    return total;
  }

  public int longest() {
    int longest = 0;
    for (long[] row : ids) {
      longest = Math.max(longest, row.length);
    }
    return longest;
  }
}
