package dev.tenbin.eval.cache;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenbin.proto.encoder.v1.GetModelInfoResponse;
import dev.tenbin.proto.encoder.v1.ModelCard;
import org.junit.jupiter.api.Test;

class CacheKeyTest {
  private static GetModelInfoResponse card(int dimension) {
    return GetModelInfoResponse.newBuilder()
        .setCard(
            ModelCard.newBuilder()
                .setId("bge-small-zh-v1.5")
                .setRevision("1.20.0-beta30")
                .setQueryPrompt("q: ")
                .setMaxLength(512)
                .setDtype("FLOAT")
                .setNormalize(true)
                .setDimension(dimension))
        .build();
  }

  @Test
  void vectorsOfAnotherWidthLiveInAnotherKeySpace() {
    CacheKey cut = CacheKey.of(card(384), true, CacheKey.Kind.DENSE, 0);
    CacheKey full = CacheKey.of(card(512), true, CacheKey.Kind.DENSE, 0);
    assertThat(full.dimension()).isEqualTo(512);
    assertThat(full.toJson()).contains("\"dimension\" : 512");
    assertThat(full.id()).isNotEqualTo(cut.id());
    assertThat(CacheKey.of(card(512), true, CacheKey.Kind.DENSE, 0).id()).isEqualTo(full.id());
  }
}
