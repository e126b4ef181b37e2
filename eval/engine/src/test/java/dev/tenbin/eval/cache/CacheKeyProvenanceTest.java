package dev.tenbin.eval.cache;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenbin.proto.common.v1.RuntimeProvenance;
import dev.tenbin.proto.encoder.v1.GetModelInfoResponse;
import dev.tenbin.proto.encoder.v1.ModelCard;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** CPU and CUDA vectors of one model never share a key space of the embedding cache. */
class CacheKeyProvenanceTest {
  @TempDir Path tmp;

  private static final RuntimeProvenance CPU =
      RuntimeProvenance.newBuilder()
          .setExecutionProvider("CPU")
          .setDevice("cpu/amd64")
          .setOnnxruntimeVersion("1.29.0")
          .setModelSha256("a".repeat(64))
          .build();

  private static CacheKey key(RuntimeProvenance provenance) {
    GetModelInfoResponse info =
        GetModelInfoResponse.newBuilder()
            .setCard(ModelCard.newBuilder().setId("m").setRevision("r1").setMaxLength(512))
            .setProvenance(provenance)
            .build();
    return CacheKey.of(info, false, CacheKey.Kind.DENSE, 0);
  }

  @Test
  void providerDeviceRuntimeAndModelFilesEachStartANewKeySpace() {
    CacheKey cpu = key(CPU);

    assertThat(key(CPU).id()).isEqualTo(cpu.id());
    assertThat(
            List.of(
                key(CPU.toBuilder().setExecutionProvider("CUDA").setDevice("cuda/H100").build())
                    .id(),
                key(CPU.toBuilder().setDevice("cpu/aarch64").build()).id(),
                key(CPU.toBuilder().setOnnxruntimeVersion("1.30.0").build()).id(),
                key(CPU.toBuilder().setModelSha256("b".repeat(64)).build()).id()))
        .doesNotContain(cpu.id())
        .doesNotHaveDuplicates();
    assertThat(cpu.toJson())
        .contains(
            "\"execution_provider\" : \"CPU\"",
            "\"device\" : \"cpu/amd64\"",
            "\"onnx_runtime\" : \"1.29.0\"",
            "\"model_sha256\" : \"" + "a".repeat(64) + "\"");
  }

  @Test
  void aVectorStoredFromTheCpuIsNotReadForCuda() {
    CacheKey cuda = key(CPU.toBuilder().setExecutionProvider("CUDA").setDevice("cuda").build());
    try (EmbeddingCache cache = EmbeddingCache.open(tmp)) {
      cache
          .space(key(CPU))
          .append(
              List.of(TextHash.of("apple")),
              List.of(PayloadCodec.DENSE.encode(new float[] {1f, 2f})));

      assertThat(cache.space(key(CPU)).read(TextHash.of("apple"))).isNotNull();
      assertThat(cache.space(cuda).read(TextHash.of("apple"))).isNull();
    }
  }
}
