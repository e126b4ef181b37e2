package dev.tenbin.eval.retrieval;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tenbin.core.InvalidInputException;
import dev.tenbin.proto.index.v1.Quantization;
import org.junit.jupiter.api.Test;

class DenseVariantTest {
  @Test
  void variantNamesCombineTruncationQuantizationAndRescoring() {
    assertThat(DenseVariant.parse("truncate256_binary_rescore"))
        .isEqualTo(
            new DenseVariant(
                "truncate256_binary_rescore", 256, Quantization.QUANTIZATION_BINARY, true));
    assertThat(DenseVariant.parse("int8"))
        .isEqualTo(new DenseVariant("int8", 0, Quantization.QUANTIZATION_INT8, false));
    assertThat(DenseVariant.parse("truncate64"))
        .isEqualTo(new DenseVariant("truncate64", 64, Quantization.QUANTIZATION_NONE, false));
    assertThat(DenseVariant.automatic())
        .extracting(DenseVariant::name)
        .containsExactly("base", "int8", "binary", "int8_rescore", "binary_rescore");
  }

  @Test
  void unknownVariantsAreRejected() {
    assertThatThrownBy(() -> DenseVariant.parse("float16"))
        .isInstanceOf(InvalidInputException.class);
    assertThatThrownBy(() -> DenseVariant.parse("rescore"))
        .isInstanceOf(InvalidInputException.class);
  }

  @Test
  void truncationOutsideOneTo65536DimensionsIsRejectedNamingTheVariantNotAnOverflow() {
    assertThat(DenseVariant.parse("truncate65536").truncate()).isEqualTo(65_536);
    for (String name :
        java.util.List.of(
            "truncate0", "truncate65537", "truncate333333333333333333333333128_int8")) {
      assertThatThrownBy(() -> DenseVariant.parse(name))
          .as(name)
          .isInstanceOfSatisfying(
              InvalidInputException.class, e -> assertThat(e.field()).isEqualTo("--variant"));
    }
  }
}
