package dev.tenbin.eval.shard.kubernetes;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The index sets of an Indexed Job's status, as the Job controller writes them. */
class IndexRangesTest {
  @Test
  void indexesAndRangesAreReadInOrder() {
    assertThat(IndexRanges.parse("0,2-4,7")).containsExactly(0, 2, 3, 4, 7);
    assertThat(IndexRanges.parse("5")).containsExactly(5);
  }

  @Test
  void anAbsentSetIsEmpty() {
    assertThat(IndexRanges.parse(null)).isEmpty();
    assertThat(IndexRanges.parse("")).isEmpty();
  }
}
