package dev.tenbin.index.dense;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class StoredVectorsTest {
  @TempDir Path dir;

  private static List<float[]> rows(int count, int dim) {
    List<float[]> out = new ArrayList<>();
    for (int v = 0; v < count; v++) {
      float[] row = new float[dim];
      for (int d = 0; d < dim; d++) {
        row[d] = v * 100 + d + 0.25f;
      }
      out.add(row);
    }
    return out;
  }

  @Test
  void mappedRowsReadAcrossMappingBoundariesEqualTheStoredOnes() {
    // 3 rows of 4 floats per 48-byte mapping: runs of 5 rows straddle two or three mappings.
    try (DenseVectorStore store = DenseVectorStore.open(dir, 4, 48)) {
      store.append(rows(6, 4));
      store.commit();
      store.append(rows(11, 4).subList(6, 11));
      store.commit();
      StoredVectors mapped = store.mapped();
      float[] all = store.snapshot();
      assertThat(mapped.isMapped()).isTrue();
      assertThat(mapped.heapBytes()).isZero();
      assertThat(mapped.size()).isEqualTo(11);
      float[] buffer = new float[5 * 4];
      for (int from = 0; from + 5 <= 11; from++) {
        StoredVectors.Run run = mapped.rows(from, 5, buffer);
        assertThat(run.floats()).isSameAs(buffer);
        assertThat(Arrays.copyOfRange(run.floats(), run.offset(), run.offset() + 20))
            .as("rows from %d", from)
            .containsExactly(Arrays.copyOfRange(all, from * 4, from * 4 + 20));
      }
      assertThat(mapped.copyRows(2, 7)).containsExactly(Arrays.copyOfRange(all, 8, 36));
      float[] row = new float[4];
      mapped.row(10, row);
      assertThat(row).containsExactly(rows(11, 4).get(10));
    }
  }

  @Test
  void aMappingKeepsItsCommittedRowsWhenMoreAreCommittedLater() {
    try (DenseVectorStore store = DenseVectorStore.open(dir, 4, 48)) {
      store.append(rows(4, 4));
      store.commit();
      StoredVectors before = store.mapped();
      store.append(rows(9, 4).subList(4, 9));
      store.commit();
      assertThat(before.size()).isEqualTo(4);
      assertThat(before.copyRows(0, 4)).containsExactly(Arrays.copyOf(store.snapshot(), 16));
      assertThat(store.mapped().size()).isEqualTo(9);
    }
  }

  @Test
  void aHeapArrayIsReadWhereItLies() {
    float[] values = {1, 2, 3, 4, 5, 6};
    StoredVectors heap = StoredVectors.of(values, 2);
    StoredVectors.Run run = heap.rows(1, 2, null);
    assertThat(run.floats()).isSameAs(values);
    assertThat(run.offset()).isEqualTo(2);
    assertThat(heap.isMapped()).isFalse();
    assertThat(heap.heapBytes()).isEqualTo(24);
  }

  @Test
  void rowsOutsideTheMappingAreRefused() {
    try (DenseVectorStore store = DenseVectorStore.open(dir, 2)) {
      store.append(rows(3, 2));
      store.commit();
      StoredVectors mapped = store.mapped();
      assertThatThrownBy(() -> mapped.copyRows(2, 2))
          .isInstanceOf(IndexOutOfBoundsException.class)
          .hasMessageContaining("0..3");
    }
  }
}
