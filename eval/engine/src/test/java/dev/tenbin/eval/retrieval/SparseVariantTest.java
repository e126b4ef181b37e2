package dev.tenbin.eval.retrieval;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tenbin.core.InvalidInputException;
import java.util.List;
import org.junit.jupiter.api.Test;

class SparseVariantTest {
  @Test
  void namedPruningSettingsAndTheGridParse() {
    assertThat(SparseVariant.parse("base")).containsExactly(SparseVariant.BASE);
    assertThat(SparseVariant.parse("sparse_q16_d256"))
        .containsExactly(new SparseVariant("sparse_q16_d256", 16, 256));
    assertThat(SparseVariant.parse("sparse_grid"))
        .hasSize(16)
        .first()
        .isEqualTo(new SparseVariant("sparse_q8_d64", 8, 64));
  }

  @Test
  void dimensionCountsOutsideTheirRangeAreRejectedNamingTheVariantNotAnOverflow() {
    assertThat(SparseVariant.parse("sparse_q1_d" + SparseVariant.MAX_DIMS))
        .first()
        .extracting(SparseVariant::maxDocumentDims)
        .isEqualTo(SparseVariant.MAX_DIMS);
    for (String name :
        List.of(
            "sparse_q0_d64",
            "sparse_q8_d" + (SparseVariant.MAX_DIMS + 1),
            "sparse_q444444444444444444444444256_d64",
            "splade")) {
      assertThatThrownBy(() -> SparseVariant.parse(name))
          .as(name)
          .isInstanceOfSatisfying(
              InvalidInputException.class, e -> assertThat(e.field()).isEqualTo("--variant"));
    }
  }
}
