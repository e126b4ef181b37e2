package dev.tenbin.eval.retrieval;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tenbin.core.InvalidInputException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class DenseVariantGridTest {
  private static Map<String, List<String>> axes(String... axisAndValues) {
    Map<String, List<String>> axes = new LinkedHashMap<>();
    for (int i = 0; i < axisAndValues.length; i += 2) {
      axes.put(axisAndValues[i], List.of(axisAndValues[i + 1].split(",")));
    }
    return axes;
  }

  @Test
  void theFullCrossProductExpandsToCanonicalNamesInAxisOrder() {
    var grid =
        DenseVariantGrid.parse(
            axes(
                "truncate", "0,256,128",
                "quantization", "none,int8,binary",
                "rescore", "false,true",
                "index", "exact,hnsw"),
            "variants");
    List<String> names = grid.names();
    // 3 truncations × 2 indexes × (none + int8 × 2 + binary × 2): rescore applies to codes only.
    assertThat(names).hasSize(3 * 2 * 5).doesNotHaveDuplicates();
    assertThat(names.subList(0, 10))
        .containsExactly(
            "base",
            "int8",
            "int8_rescore",
            "binary",
            "binary_rescore",
            "hnsw",
            "hnsw_int8",
            "hnsw_int8_rescore",
            "hnsw_binary",
            "hnsw_binary_rescore");
    assertThat(names)
        .contains("truncate256_int8_rescore", "truncate256_hnsw_binary_rescore", "truncate128");
    for (String name : names) {
      assertThat(DenseVariant.parse(name).name()).isEqualTo(name);
    }
    assertThat(grid.variants()).extracting(DenseVariant::name).isEqualTo(names);
  }

  @Test
  void leftOutAxesTakeTheirOneDefaultAndChunkingPrefixesTheNames() {
    assertThat(DenseVariantGrid.parse(axes("quantization", "int8"), "v").names())
        .containsExactly("int8");
    assertThat(DenseVariantGrid.parse(Map.of(), "v").names()).containsExactly("base");
    assertThat(
            DenseVariantGrid.parse(axes("chunking", "none,maxp256s128", "index", "hnsw"), "v")
                .names())
        .containsExactly("hnsw", "maxp256s128_hnsw");
  }

  @Test
  void invalidGridsAreErrorsNamingTheFieldAndValue() {
    assertError(axes("truncate", "0,-5"), "variants.truncate[1]", "-5");
    assertError(axes("truncate", "0,65537"), "variants.truncate[1]", "65536");
    assertError(axes("quantization", "int4"), "variants.quantization[0]", "int4");
    assertError(axes("rescore", "maybe"), "variants.rescore[0]", "true or false");
    assertError(axes("index", "ivf"), "variants.index[0]", "exact or hnsw");
    assertError(axes("chunking", "maxp256_int8"), "variants.chunking[0]", "chunking");
    assertError(axes("quantization", "int8,int8"), "variants.quantization[1]", "repeats");
    assertError(axes("precision", "fp16"), "variants.precision", "unknown variants axis");
    assertError(
        axes("quantization", "none", "rescore", "true"),
        "variants.rescore",
        "needs a quantization");
    Map<String, List<String>> empty = new LinkedHashMap<>();
    empty.put("truncate", List.of());
    assertError(empty, "variants.truncate", "at least one value");
  }

  private static void assertError(Map<String, List<String>> axes, String field, String message) {
    assertThatThrownBy(() -> DenseVariantGrid.parse(axes, "variants"))
        .as(field)
        .isInstanceOfSatisfying(
            InvalidInputException.class,
            e -> {
              assertThat(e.field()).isEqualTo(field);
              assertThat(e.getMessage()).contains(message);
            });
  }
}
