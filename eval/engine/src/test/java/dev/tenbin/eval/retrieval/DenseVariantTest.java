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

  @Test
  void canonicalNamesRoundTripThroughParseForEveryCombination() {
    for (Chunking chunking :
        java.util.List.of(Chunking.TRUNCATE, Chunking.ofVariant("maxp256s128")))
      for (int truncate : new int[] {0, 128})
        for (boolean approximate : new boolean[] {false, true})
          for (Quantization quantization :
              java.util.List.of(
                  Quantization.QUANTIZATION_NONE,
                  Quantization.QUANTIZATION_INT8,
                  Quantization.QUANTIZATION_BINARY))
            for (boolean rescore : new boolean[] {false, true}) {
              if (rescore && quantization == Quantization.QUANTIZATION_NONE) {
                continue;
              }
              DenseVariant variant =
                  DenseVariant.named(chunking, truncate, quantization, rescore, approximate);
              assertThat(DenseVariant.parse(variant.name())).isEqualTo(variant);
              assertThat(variant.truncate()).isEqualTo(truncate);
              assertThat(variant.quantization()).isEqualTo(quantization);
              assertThat(variant.rescore()).isEqualTo(rescore);
              assertThat(variant.approximate()).isEqualTo(approximate);
              assertThat(variant.chunking()).isEqualTo(chunking);
            }
  }

  @Test
  void canonicalNamesKeepTheExistingSpellingsAndOrderTruncationHnswQuantizationRescore() {
    Quantization none = Quantization.QUANTIZATION_NONE;
    Quantization int8 = Quantization.QUANTIZATION_INT8;
    Quantization binary = Quantization.QUANTIZATION_BINARY;
    assertThat(DenseVariant.named(Chunking.TRUNCATE, 0, none, false, false))
        .isEqualTo(DenseVariant.BASE);
    assertThat(DenseVariant.named(Chunking.TRUNCATE, 0, none, false, true))
        .isEqualTo(DenseVariant.HNSW);
    assertThat(DenseVariant.named(Chunking.TRUNCATE, 256, binary, true, false).name())
        .isEqualTo("truncate256_binary_rescore");
    assertThat(DenseVariant.named(Chunking.TRUNCATE, 0, int8, true, false).name())
        .isEqualTo("int8_rescore");
    assertThat(DenseVariant.named(Chunking.TRUNCATE, 256, binary, true, true).name())
        .isEqualTo("truncate256_hnsw_binary_rescore");
    assertThat(DenseVariant.named(Chunking.TRUNCATE, 0, int8, false, true).name())
        .isEqualTo("hnsw_int8");
    assertThat(DenseVariant.named(Chunking.ofVariant("maxp256"), 0, none, false, false).name())
        .isEqualTo("maxp256");
    assertThat(DenseVariant.named(Chunking.ofVariant("firstp128"), 64, int8, false, true).name())
        .isEqualTo("firstp128_truncate64_hnsw_int8");
    assertThat(
            DenseVariant.parse("hnsw_int8")
                .options(dev.tenbin.proto.common.v1.Similarity.SIMILARITY_COSINE))
        .satisfies(
            options -> {
              assertThat(options.getApproximate()).isTrue();
              assertThat(options.getQuantization()).isEqualTo(int8);
            });
  }

  @Test
  void rescoringWithoutAQuantizationIsAnErrorNamingRescore() {
    for (String name : java.util.List.of("hnsw_rescore", "truncate256_rescore")) {
      assertThatThrownBy(() -> DenseVariant.parse(name))
          .as(name)
          .isInstanceOf(InvalidInputException.class)
          .hasMessageContaining("rescore needs int8 or binary");
    }
    assertThatThrownBy(
            () ->
                DenseVariant.named(
                    Chunking.TRUNCATE, 0, Quantization.QUANTIZATION_NONE, true, true))
        .isInstanceOfSatisfying(
            InvalidInputException.class, e -> assertThat(e.field()).isEqualTo("rescore"));
  }
}
