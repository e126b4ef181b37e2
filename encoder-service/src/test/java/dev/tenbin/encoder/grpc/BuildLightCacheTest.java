package dev.tenbin.encoder.grpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import dev.tenbin.client.encoder.EncoderClient;
import dev.tenbin.encoder.config.EncoderServiceConfig;
import dev.tenbin.encoder.server.EncoderServer;
import dev.tenbin.proto.encoder.v1.BuildLightCacheRequest;
import dev.tenbin.proto.encoder.v1.EncodeLightQueryRequest;
import dev.tenbin.proto.encoder.v1.EncodeLightQueryResponse;
import dev.tenbin.proto.encoder.v1.EncoderServiceGrpc;
import dev.tenbin.proto.encoder.v1.LightCache;
import dev.tenbin.proto.encoder.v1.LightCacheDtype;
import dev.tenbin.proto.encoder.v1.LightQueryKind;
import dev.tenbin.testing.models.TinyModels;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** BuildLightCache: the encoder builds the LightRetriever cache in its own cache directory. */
class BuildLightCacheTest {
  @TempDir Path tmp;
  EncoderServer.Embedded server;
  ManagedChannel channel;
  EncoderClient client;

  @BeforeEach
  void start() throws Exception {
    Path models = tmp.resolve("models");
    TinyModels.dense(models, "tiny-dense", false);
    String name = "light-cache-" + UUID.randomUUID();
    server =
        EncoderServer.startInProcess(
            name,
            EncoderServiceConfig.embedded(models, tmp.resolve("cache")),
            new SimpleMeterRegistry());
    channel = InProcessChannelBuilder.forName(name).build();
    client = EncoderClient.of(channel).withDeadline(Duration.ofSeconds(60));
  }

  @AfterEach
  void stop() {
    channel.shutdownNow();
    server.close();
  }

  @Test
  void theBuiltCacheServesLightQueriesThatEqualTheFullEncodingOfAOneTokenQuery() {
    assertThatThrownBy(() -> client.encodeLightDense("tiny-dense", List.of("apple"), 0))
        .isInstanceOfSatisfying(
            StatusRuntimeException.class,
            e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.FAILED_PRECONDITION));
    List<int[]> progress = new ArrayList<>();

    LightCache cache =
        client.buildLightCache(
            "tiny-dense",
            LightCacheDtype.LIGHT_CACHE_DTYPE_UNSPECIFIED,
            4,
            (rows, vocabulary) -> progress.add(new int[] {rows, vocabulary}));

    assertThat(cache.getVocabularySize()).isEqualTo(TinyModels.VOCABULARY);
    assertThat(cache.getDimension()).isEqualTo(TinyModels.HIDDEN);
    assertThat(cache.getDtype()).isEqualTo(LightCacheDtype.LIGHT_CACHE_DTYPE_FP32);
    assertThat(cache.getReused()).isFalse();
    assertThat(Path.of(cache.getLocation())).startsWith(tmp.resolve("cache")).isDirectory();
    assertThat(progress)
        .isNotEmpty()
        .allSatisfy(p -> assertThat(p[1]).isEqualTo(TinyModels.VOCABULARY));
    assertThat(progress.getLast()[0]).isEqualTo(TinyModels.VOCABULARY);
    // "apple" is one token: its light vector is its cached row, the full model's encoding of the
    // query.
    float[] light = client.encodeLightDense("tiny-dense", List.of("apple"), 0).getFirst();
    float[] full =
        normalized(client.encodeDense("tiny-dense", List.of("apple"), true, 0).getFirst());
    assertThat(light).containsExactly(full, within(1e-6f));
  }

  @Test
  void aCompleteCacheIsReusedAndKeepsItsDtype() throws Exception {
    LightCache first =
        client.buildLightCache(
            "tiny-dense", LightCacheDtype.LIGHT_CACHE_DTYPE_FP16, 0, (rows, vocabulary) -> {});
    Path manifest = Path.of(first.getLocation()).resolve("manifest.json");
    var written = Files.getLastModifiedTime(manifest);

    LightCache second =
        client.buildLightCache(
            "tiny-dense", LightCacheDtype.LIGHT_CACHE_DTYPE_FP32, 0, (rows, vocabulary) -> {});

    assertThat(first.getDtype()).isEqualTo(LightCacheDtype.LIGHT_CACHE_DTYPE_FP16);
    assertThat(first.getReused()).isFalse();
    assertThat(second.getReused()).isTrue();
    assertThat(second.getDtype()).isEqualTo(LightCacheDtype.LIGHT_CACHE_DTYPE_FP16);
    assertThat(second.getLocation()).isEqualTo(first.getLocation());
    assertThat(Files.getLastModifiedTime(manifest)).isEqualTo(written);
  }

  @Test
  void anInt8MatryoshkaTableIsBuiltAndServedAndSparseQueriesKeepTheirTopK() {
    var stub = EncoderServiceGrpc.newBlockingStub(channel);
    LightCache narrow = null;
    var responses =
        stub.buildLightCache(
            BuildLightCacheRequest.newBuilder()
                .setModelId("tiny-dense")
                .setDtype(LightCacheDtype.LIGHT_CACHE_DTYPE_INT8)
                .setDimensions(4)
                .build());
    while (responses.hasNext()) {
      var response = responses.next();
      if (response.hasCache()) {
        narrow = response.getCache();
      }
    }
    assertThat(narrow).isNotNull();
    assertThat(narrow.getDtype()).isEqualTo(LightCacheDtype.LIGHT_CACHE_DTYPE_INT8);
    assertThat(narrow.getDimension()).isEqualTo(4);
    EncodeLightQueryResponse dense =
        stub.encodeLightQuery(
            EncodeLightQueryRequest.newBuilder()
                .setModelId("tiny-dense")
                .addQueries("apple banana")
                .setKind(LightQueryKind.LIGHT_QUERY_KIND_DENSE)
                .setDimensions(4)
                .setNormalize(true)
                .build());
    assertThat(dense.getDense(0).getValuesList()).hasSize(4);
    EncodeLightQueryResponse sparse =
        stub.encodeLightQuery(
            EncodeLightQueryRequest.newBuilder()
                .setModelId("tiny-dense")
                .addQueries("apple banana banana")
                .setKind(LightQueryKind.LIGHT_QUERY_KIND_SPARSE)
                .setSparseTopK(1)
                .build());
    assertThat(sparse.getSparse(0).getIndicesList()).containsExactly(5);
    assertThatThrownBy(
            () ->
                stub.encodeLightQuery(
                    EncodeLightQueryRequest.newBuilder()
                        .setModelId("tiny-dense")
                        .addQueries("apple")
                        .setKind(LightQueryKind.LIGHT_QUERY_KIND_SPARSE)
                        .setSparseTopK(-1)
                        .build()))
        .isInstanceOfSatisfying(
            StatusRuntimeException.class,
            e -> {
              assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
              assertThat(e.getStatus().getDescription()).contains("sparse_top_k");
            });
  }

  @Test
  void badRequestsAreRejectedNamingTheField() {
    var stub = EncoderServiceGrpc.newBlockingStub(channel);
    assertThatThrownBy(
            () ->
                stub.buildLightCache(
                        BuildLightCacheRequest.newBuilder()
                            .setModelId("tiny-dense")
                            .setBatchSize(-1)
                            .build())
                    .hasNext())
        .isInstanceOfSatisfying(
            StatusRuntimeException.class,
            e -> {
              assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
              assertThat(e.getStatus().getDescription()).contains("batch_size");
            });
    assertThatThrownBy(
            () ->
                stub.buildLightCache(
                        BuildLightCacheRequest.newBuilder()
                            .setModelId("tiny-dense")
                            .setDtypeValue(7)
                            .build())
                    .hasNext())
        .isInstanceOfSatisfying(
            StatusRuntimeException.class,
            e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT));
    assertThatThrownBy(
            () ->
                stub.buildLightCache(
                        BuildLightCacheRequest.newBuilder().setModelId("no-such-model").build())
                    .hasNext())
        .isInstanceOfSatisfying(
            StatusRuntimeException.class,
            e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.NOT_FOUND));
  }

  private static float[] normalized(float[] vector) {
    double norm = 0;
    for (float v : vector) {
      norm += v * v;
    }
    float[] out = new float[vector.length];
    for (int i = 0; i < vector.length; i++) {
      out[i] = (float) (vector[i] / Math.sqrt(norm));
    }
    return out;
  }
}
