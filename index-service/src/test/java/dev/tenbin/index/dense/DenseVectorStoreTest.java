package dev.tenbin.index.dense;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tenbin.core.InvalidInputException;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DenseVectorStoreTest {
  @TempDir Path dir;

  @Test
  void committedVectorsSurviveAReopenAndUncommittedOnesDoNot() {
    try (DenseVectorStore store = DenseVectorStore.open(dir, 2)) {
      store.append(List.of(new float[] {1, 2}, new float[] {3, 4}));
      store.commit();
      store.append(List.of(new float[] {5, 6}));
      assertThat(store.size()).isEqualTo(2);
    }
    try (DenseVectorStore store = DenseVectorStore.open(dir, 2)) {
      assertThat(store.size()).isEqualTo(2);
      assertThat(store.vector(1)).containsExactly(3, 4);
      assertThat(store.snapshot()).containsExactly(1, 2, 3, 4);
      store.truncateTo(1);
      assertThat(store.size()).isEqualTo(1);
    }
  }

  @Test
  void validationNamesTheDocumentField() {
    try (DenseVectorStore store = DenseVectorStore.open(dir, 2)) {
      assertThatThrownBy(() -> store.validate(List.of(new float[] {1, 2}, new float[] {1}), "documents[{i}].dense"))
          .isInstanceOf(InvalidInputException.class)
          .extracting(e -> ((InvalidInputException) e).field())
          .isEqualTo("documents[1].dense");
      assertThatThrownBy(() -> store.validate(List.of(new float[] {Float.NaN, 2}), "documents[{i}].dense"))
          .hasMessageContaining("NaN");
    }
  }
}
