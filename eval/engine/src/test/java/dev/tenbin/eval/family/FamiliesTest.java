package dev.tenbin.eval.family;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tenbin.core.InvalidInputException;
import dev.tenbin.eval.plan.RetrievalFamily;
import dev.tenbin.eval.plan.RetrieverSpec;
import java.util.List;
import org.junit.jupiter.api.Test;

class FamiliesTest {
  @Test
  void everyFamilyParsesItsOwnUsageAndNamesItsSystem() {
    for (RetrievalFamily family : Families.retrieval()) {
      String text =
          family.name().equals("hybrid")
              ? "hybrid:bm25+dense:some-model"
              : family.takesModel() ? family.name() + ":some-model" : family.name();
      RetrieverSpec spec = Families.parse(text);
      assertThat(spec.family()).isSameAs(family);
      assertThat(spec.name()).as("the system is the text it was parsed from").isEqualTo(text);
    }
  }

  @Test
  void theRegistryHoldsTheRetrievalFamiliesOnceEach() {
    List<String> names = Families.retrieval().stream().map(RetrievalFamily::name).toList();
    assertThat(names)
        .containsExactly(
            "bm25", "dense", "light", "sparse", "sparse-bm25", "multivector", "hybrid");
    assertThat(Families.candidates().name()).isEqualTo("candidates");
  }

  @Test
  void malformedRetrieversAreRejectedWithTheListOfFamilies() {
    for (String bad :
        List.of("", "dense", "dense:", "bm25:x", ":m", "colbert:m", "sparse_bm25:m")) {
      assertThatThrownBy(() -> Families.parse(bad))
          .as(bad)
          .isInstanceOf(InvalidInputException.class)
          .hasMessageContaining(
              "expected bm25, dense:MODEL, light:MODEL, sparse:MODEL, sparse-bm25:MODEL,"
                  + " multivector:MODEL or hybrid:A+B");
    }
  }

  @Test
  void variantsAreCheckedByTheirFamily() {
    Families.named("dense").orElseThrow().checkVariant("f", "int8_rescore");
    Families.named("sparse").orElseThrow().checkVariant("f", "sparse_q64_d256");
    assertThatThrownBy(
            () -> Families.named("dense").orElseThrow().checkVariant("f", "sparse_q64_d256"))
        .isInstanceOf(InvalidInputException.class);
    assertThatThrownBy(() -> Families.named("multivector").orElseThrow().checkVariant("f", "int8"))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("multivector:MODEL has only the variant base");
  }

  @Test
  void evalVariantsGiveEachFamilyItsOwnFlagsOrItsDefault() {
    RetrievalFamily dense = Families.named("dense").orElseThrow();
    RetrievalFamily sparse = Families.named("sparse").orElseThrow();
    assertThat(dense.evalVariants(List.of()))
        .containsExactly("base", "int8", "binary", "int8_rescore", "binary_rescore");
    assertThat(dense.evalVariants(List.of("int8", "sparse_q64_d256"))).containsExactly("int8");
    assertThat(sparse.evalVariants(List.of())).containsExactly("base");
    assertThat(Families.named("bm25").orElseThrow().evalVariants(List.of("int8")))
        .containsExactly("base");
    RetrievalFamily hybrid = Families.named("hybrid").orElseThrow();
    assertThat(hybrid.evalVariants(List.of("base", "int8"))).containsExactly("rrf_k60");
    assertThat(hybrid.evalVariants(List.of("base", "rrf", "minmax_w0.30")))
        .containsExactly("rrf_k60", "minmax_w0.3");
    assertThat(dense.evalVariants(List.of("base", "rrf_k60"))).containsExactly("base");
    assertThat(sparse.evalVariants(List.of("minmax"))).containsExactly("base");
  }

  @Test
  void aHybridNamesTwoOrMoreDistinctNonHybridComponentsEachWithAVariantOfItsFamily() {
    assertThat(Families.parse("hybrid:bm25+dense:m@int8+light:m").name())
        .isEqualTo("hybrid:bm25+dense:m@int8+light:m");
    for (String bad :
        List.of(
            "hybrid:bm25",
            "hybrid:",
            "hybrid:bm25+",
            "hybrid:bm25+colbert:m",
            "hybrid:dense:m+dense:m",
            "hybrid:bm25+dense:m@int9",
            "hybrid:bm25+bm25@int8")) {
      assertThatThrownBy(() -> Families.parse(bad))
          .as(bad)
          .isInstanceOf(InvalidInputException.class);
    }
  }

  @Test
  void onlyBiEncoderFamiliesNameRerankers() {
    assertThat(RerankWork.biEncoder("dense:m")).map(RetrievalFamily::name).contains("dense");
    assertThat(RerankWork.biEncoder("multivector:m"))
        .map(RetrievalFamily::name)
        .contains("multivector");
    assertThat(RerankWork.biEncoder("sparse-bm25:m")).isEmpty();
    assertThat(RerankWork.biEncoder("BAAI/bge-reranker-base")).isEmpty();
    assertThat(Families.rerankUsages()).isEqualTo("dense:MODEL, sparse:MODEL, multivector:MODEL");
  }
}
