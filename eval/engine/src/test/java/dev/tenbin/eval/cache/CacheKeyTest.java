package dev.tenbin.eval.cache;

import static dev.tenbin.eval.cache.CacheKey.Kind.DENSE;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tenbin.proto.encoder.v1.BatchInvariance;
import dev.tenbin.proto.encoder.v1.EncodingPolicy;
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

  private static GetModelInfoResponse probed(EncodingPolicy policy) {
    return card(384).toBuilder()
        .setBatchInvariance(
            BatchInvariance.newBuilder()
                .setInvariant(policy == EncodingPolicy.ENCODING_POLICY_BATCHED)
                .setPolicy(policy))
        .build();
  }

  @Test
  void vectorsEncodedOneTextPerPassLiveInAnotherKeySpace() {
    CacheKey batched = CacheKey.of(probed(EncodingPolicy.ENCODING_POLICY_BATCHED), false, DENSE, 0);
    CacheKey single =
        CacheKey.of(probed(EncodingPolicy.ENCODING_POLICY_ONE_TEXT_PER_PASS), false, DENSE, 0);
    assertThat(single.encodingPolicy()).isEqualTo("one-text-per-pass");
    assertThat(single.toJson()).contains("\"encoding_policy\" : \"one-text-per-pass\"");
    assertThat(single.id()).isNotEqualTo(batched.id());
  }

  @Test
  void aBatchedModelKeepsTheKeySpaceItHadBeforeTheEncoderProbed() {
    CacheKey unprobed = CacheKey.of(card(384), false, DENSE, 0);
    CacheKey batched = CacheKey.of(probed(EncodingPolicy.ENCODING_POLICY_BATCHED), false, DENSE, 0);
    assertThat(unprobed.encodingPolicy()).isEqualTo(CacheKey.BATCHED);
    assertThat(batched.toJson()).doesNotContain("encoding_policy").isEqualTo(unprobed.toJson());
    assertThat(batched.id()).isEqualTo(unprobed.id());
  }
}
