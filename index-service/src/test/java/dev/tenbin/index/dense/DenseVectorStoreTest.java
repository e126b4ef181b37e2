package dev.tenbin.index.dense;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tenbin.core.InvalidInputException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DenseVectorStoreTest {
  @TempDir Path dir;

  private static List<float[]> vectors(int from, int count, int dim) {
    List<float[]> out = new ArrayList<>();
    for (int v = from; v < from + count; v++) {
      float[] vector = new float[dim];
      for (int d = 0; d < dim; d++) {
        vector[d] = v * 10 + d + 0.5f;
      }
      out.add(vector);
    }
    return out;
  }

  @Test
  void committedVectorsSurviveAReopenAndUncommittedOnesDoNot() {
    try (DenseVectorStore store = DenseVectorStore.open(dir, 2)) {
      store.append(List.of(new float[] {1, 2}, new float[] {3, 4}));
      assertThat(store.size()).as("invisible before commit").isZero();
      store.commit();
      store.append(List.of(new float[] {5, 6}));
      assertThat(store.size()).isEqualTo(2);
    }
    try (DenseVectorStore store = DenseVectorStore.open(dir, 2)) {
      assertThat(store.size()).isEqualTo(2);
      assertThat(store.vector(1)).containsExactly(3, 4);
      assertThat(store.snapshot()).containsExactly(1, 2, 3, 4);
      assertThat(store.bytesOnDisk()).isEqualTo(16);
    }
  }

  @Test
  void rollbackDiscardsAppendsAndTheNextCommitStartsAfterTheCommittedVectors() {
    try (DenseVectorStore store = DenseVectorStore.open(dir, 2)) {
      store.append(List.of(new float[] {1, 2}));
      store.commit();
      store.append(List.of(new float[] {9, 9}, new float[] {9, 9}));
      store.rollback();
      store.append(List.of(new float[] {3, 4}));
      store.commit();
      assertThat(store.snapshot()).containsExactly(1, 2, 3, 4);
    }
  }

  @Test
  void trailingBytesOfAnInterruptedBatchAreCutOffOnReopen() throws IOException {
    try (DenseVectorStore store = DenseVectorStore.open(dir, 2)) {
      store.append(List.of(new float[] {1, 2}));
      store.commit();
    }
    Files.write(
        dir.resolve("vectors.f32"), new byte[] {1, 2, 3, 4, 5, 6, 7}, StandardOpenOption.APPEND);
    try (DenseVectorStore store = DenseVectorStore.open(dir, 2)) {
      assertThat(store.size()).isEqualTo(1);
      assertThat(Files.size(dir.resolve("vectors.f32"))).isEqualTo(8);
      store.append(List.of(new float[] {3, 4}));
      store.commit();
      assertThat(store.snapshot()).containsExactly(1, 2, 3, 4);
    }
  }

  @Test
  void truncateToKeepsTheLeadingVectorsDurably() {
    try (DenseVectorStore store = DenseVectorStore.open(dir, 3)) {
      store.append(vectors(0, 5, 3));
      store.commit();
      store.append(vectors(5, 1, 3));
      store.truncateTo(2);
      assertThat(store.size()).isEqualTo(2);
      store.truncateTo(10);
      assertThat(store.size()).as("a larger count keeps everything").isEqualTo(2);
    }
    try (DenseVectorStore store = DenseVectorStore.open(dir, 3)) {
      assertThat(store.size()).isEqualTo(2);
      assertThat(store.vector(1)).containsExactly(vectors(1, 1, 3).get(0));
      store.append(vectors(7, 1, 3));
      store.commit();
      assertThat(store.vector(2)).containsExactly(vectors(7, 1, 3).get(0));
    }
  }

  @Test
  void vectorsSpanSeveralMappingsAcrossCommitsAndTruncations() {
    // 3 vectors of 4 floats per 48-byte mapping.
    try (DenseVectorStore store = DenseVectorStore.open(dir, 4, 48)) {
      for (int batch = 0; batch < 4; batch++) {
        store.append(vectors(batch * 2, 2, 4));
        store.commit();
      }
      for (int v = 0; v < 8; v++) {
        assertThat(store.vector(v)).containsExactly(vectors(v, 1, 4).get(0));
      }
      store.truncateTo(4);
      store.append(vectors(20, 1, 4));
      store.commit();
      assertThat(store.vector(4)).containsExactly(vectors(20, 1, 4).get(0));
      float[] all = store.snapshot();
      assertThat(all).hasSize(20);
      assertThat(Arrays.copyOfRange(all, 12, 16)).containsExactly(vectors(3, 1, 4).get(0));
    }
  }

  @Test
  void invalidVectorsAreRejectedNamingTheDocumentAndNothingIsWritten() {
    try (DenseVectorStore store = DenseVectorStore.open(dir, 2)) {
      assertThatThrownBy(() -> store.append(List.of(new float[] {1, 2}, new float[] {1})))
          .isInstanceOf(InvalidInputException.class)
          .hasMessageContaining("document 1")
          .extracting(e -> ((InvalidInputException) e).field())
          .isEqualTo("documents[1].dense");
      assertThatThrownBy(() -> store.append(List.of(new float[] {1, Float.POSITIVE_INFINITY})))
          .isInstanceOf(InvalidInputException.class)
          .hasMessageContaining("NaN or infinite")
          .extracting(e -> ((InvalidInputException) e).field())
          .isEqualTo("documents[0].dense");
      assertThatThrownBy(
              () -> store.validate(Arrays.asList(new float[] {1, 2}, null), "batch[{i}].vector"))
          .isInstanceOf(InvalidInputException.class)
          .extracting(e -> ((InvalidInputException) e).field())
          .isEqualTo("batch[1].vector");
      store.commit();
      assertThat(store.size()).isZero();
    }
  }

  @Test
  void reopeningWithAnotherDimensionFails() {
    DenseVectorStore.open(dir, 2).close();
    assertThatThrownBy(() -> DenseVectorStore.open(dir, 3))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("2 dimensions, not 3");
  }

  @Test
  void aStoreWithTheEarlierCountFileOpensWithItsCommittedVectors() throws IOException {
    Files.write(
        dir.resolve("vectors.f32"),
        new byte[] {0, 0, (byte) 0x80, 0x3f, 0, 0, 0, 0x40, 0, 0, 0x40, 0x40});
    Files.writeString(dir.resolve("count"), "1");
    try (DenseVectorStore store = DenseVectorStore.open(dir, 2)) {
      assertThat(store.size()).isEqualTo(1);
      assertThat(store.vector(0)).containsExactly(1, 2);
    }
    assertThat(dir.resolve("count")).doesNotExist();
    assertThat(dir.resolve("manifest")).exists();
  }

  @Test
  void aDataFileShorterThanItsManifestIsReportedAsDamaged() throws IOException {
    try (DenseVectorStore store = DenseVectorStore.open(dir, 2)) {
      store.append(List.of(new float[] {1, 2}));
      store.commit();
    }
    Files.write(dir.resolve("vectors.f32"), new byte[4]);
    assertThatThrownBy(() -> DenseVectorStore.open(dir, 2))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("damaged");
  }

  @Test
  void ordinalsOutsideTheCommittedVectorsAreRejected() {
    try (DenseVectorStore store = DenseVectorStore.open(dir, 2)) {
      store.append(List.of(new float[] {1, 2}));
      assertThatThrownBy(() -> store.vector(0)).isInstanceOf(IndexOutOfBoundsException.class);
    }
  }
}
