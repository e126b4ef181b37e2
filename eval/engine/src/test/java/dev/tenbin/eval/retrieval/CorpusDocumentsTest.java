package dev.tenbin.eval.retrieval;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tenbin.scoring.beir.CorpusDocument;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class CorpusDocumentsTest {
  private static final int SLICE = CorpusDocuments.SLICE;

  private static Iterator<CorpusDocument> corpus(int documents) {
    return IntStream.range(0, documents)
        .mapToObj(i -> new CorpusDocument("d" + i, "", "text " + i))
        .iterator();
  }

  /** The slices of {@code documents} cut as a work item cuts them: lists of the first ids. */
  private static List<List<CorpusDocument>> slices(Iterator<CorpusDocument> documents) {
    List<List<CorpusDocument>> slices = new ArrayList<>();
    while (documents.hasNext()) {
      slices.add(CorpusDocuments.nextSlice(documents, SLICE));
    }
    return slices;
  }

  @Test
  void slicesCountTheCorpusWithAShortLastOne() {
    int documents = 3 * SLICE + 5;
    assertThat(CorpusDocuments.sliceCount(documents)).isEqualTo(4);
    assertThat(CorpusDocuments.sliceCount(3 * SLICE)).isEqualTo(3);
    assertThat(CorpusDocuments.sliceCount(0)).isZero();
    assertThat(CorpusDocuments.sliceSize(0, documents)).isEqualTo(SLICE);
    assertThat(CorpusDocuments.sliceSize(3, documents)).isEqualTo(5);
    List<List<CorpusDocument>> slices = slices(corpus(documents));
    assertThat(slices).hasSize(4);
    for (int slice = 0; slice < slices.size(); slice++) {
      assertThat(slices.get(slice)).hasSize(CorpusDocuments.sliceSize(slice, documents));
      assertThat(slices.get(slice).get(0).id()).isEqualTo("d" + slice * SLICE);
    }
  }

  @Test
  void aShareHoldsItsSlicesWholeAndTheSharesTogetherHoldTheCorpusOnce() {
    int documents = 7 * SLICE + 100;
    List<List<CorpusDocument>> whole = slices(corpus(documents));
    int shards = 3;
    List<String> seen = new ArrayList<>();
    for (int shard = 0; shard < shards; shard++) {
      List<List<CorpusDocument>> share =
          slices(CorpusDocuments.shareOf(corpus(documents), shard, shards));
      List<List<CorpusDocument>> expected = new ArrayList<>();
      for (int slice = shard; slice < whole.size(); slice += shards) {
        expected.add(whole.get(slice));
      }
      assertThat(share).as("shard %d", shard).isEqualTo(expected);
      // The counts a share's progress is reported against, without walking it.
      assertThat(CorpusDocuments.shareSlices(documents, shard, shards)).isEqualTo(share.size());
      assertThat(CorpusDocuments.shareDocuments(documents, shard, shards))
          .isEqualTo(share.stream().mapToLong(List::size).sum());
      share.forEach(slice -> slice.forEach(doc -> seen.add(doc.id())));
    }
    assertThat(seen).hasSize(documents).doesNotHaveDuplicates();
  }

  @Test
  void aShardPastTheLastSliceHasNothingAndABadShardIsRefused() {
    Iterator<CorpusDocument> share = CorpusDocuments.shareOf(corpus(SLICE + 1), 2, 3);
    assertThat(share.hasNext()).isFalse();
    assertThat(CorpusDocuments.shareSlices(SLICE + 1, 2, 3)).isZero();
    assertThat(CorpusDocuments.shareDocuments(SLICE + 1, 2, 3)).isZero();
    assertThat(CorpusDocuments.shareSlices(SLICE + 1, 1, 3)).isOne();
    assertThat(CorpusDocuments.shareDocuments(SLICE + 1, 1, 3)).isOne();
    assertThatThrownBy(share::next).isInstanceOf(NoSuchElementException.class);
    assertThatThrownBy(() -> CorpusDocuments.shareOf(corpus(1), 3, 3))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("shard 3 of 3");
  }
}
