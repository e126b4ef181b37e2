package dev.tenbin.encoder.grpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tenbin.client.CallPolicy;
import dev.tenbin.client.encoder.EncoderClient;
import dev.tenbin.core.Cancellation;
import dev.tenbin.encoder.config.EncoderServiceConfig;
import dev.tenbin.encoder.server.EncoderServer;
import dev.tenbin.proto.encoder.v1.EncodeDenseRequest;
import dev.tenbin.proto.encoder.v1.EncoderServiceGrpc;
import dev.tenbin.proto.encoder.v1.GetModelInfoRequest;
import dev.tenbin.proto.encoder.v1.InputRole;
import dev.tenbin.proto.encoder.v1.ListModelsRequest;
import dev.tenbin.proto.encoder.v1.TokenizeRequest;
import dev.tenbin.rpc.StatusMapper;
import dev.tenbin.testing.models.TinyModels;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class EncoderGrpcServiceTest {
  @TempDir Path tmp;
  EncoderServer.Embedded server;
  ManagedChannel channel;
  EncoderServiceGrpc.EncoderServiceBlockingStub stub;

  @BeforeEach
  void start() throws Exception {
    TinyModels.dense(tmp.resolve("models"), "tiny-dense", false);
    String name = "encoder-" + UUID.randomUUID();
    server =
        EncoderServer.startInProcess(
            name,
            EncoderServiceConfig.embedded(tmp.resolve("models"), tmp.resolve("cache")),
            new SimpleMeterRegistry());
    channel = InProcessChannelBuilder.forName(name).directExecutor().build();
    stub = EncoderServiceGrpc.newBlockingStub(channel);
  }

  @AfterEach
  void stop() {
    channel.shutdownNow();
    server.close();
  }

  @Test
  void vectorsOverGrpcEqualTheInProcessComputationBitForBit() {
    List<String> texts = List.of("apple banana", "cherry", "date elder fig grape");
    List<float[]> overGrpc = EncoderClient.of(channel).encodeDense("tiny-dense", texts, false, 0);
    List<float[]> inProcess =
        server.core().encodeDense("tiny-dense", texts, false, 0, Cancellation.NEVER).vectors();
    for (int i = 0; i < texts.size(); i++) {
      for (int d = 0; d < overGrpc.get(i).length; d++) {
        assertThat(Float.floatToRawIntBits(overGrpc.get(i)[d]))
            .isEqualTo(Float.floatToRawIntBits(inProcess.get(i)[d]));
      }
    }
    List<float[]> streamed =
        EncoderClient.of(channel).streamEncodeDense("tiny-dense", texts, false, 2, done -> {});
    assertThat(streamed).hasSize(3);
    assertThat(streamed.get(2)).containsExactly(inProcess.get(2));
  }

  @Test
  void lightQueriesAreServedOverGrpcFromTheCache() {
    var model = server.core().model("tiny-dense");
    dev.tenbin.encoder.light.TokenEmbeddingCache.build(
        model,
        dev.tenbin.encoder.light.TokenEmbeddingCache.folder(tmp.resolve("cache"), model.card()),
        4,
        4,
        0,
        false,
        done -> {});
    List<float[]> light =
        EncoderClient.of(channel).encodeLightDense("tiny-dense", List.of("apple banana"), 0);
    List<float[]> local =
        new dev.tenbin.encoder.light.LightQueryEncoder(server.core(), tmp.resolve("cache"))
            .dense("tiny-dense", List.of("apple banana"), 0, true);
    assertThat(light.getFirst()).containsExactly(local.getFirst());
    var sparse =
        stub.encodeLightQuery(
            dev.tenbin.proto.encoder.v1.EncodeLightQueryRequest.newBuilder()
                .setModelId("tiny-dense")
                .addQueries("apple apple")
                .setKind(dev.tenbin.proto.encoder.v1.LightQueryKind.LIGHT_QUERY_KIND_SPARSE)
                .build());
    assertThat(sparse.getSparse(0).getIndicesList()).containsExactly(4);
    assertThat(sparse.getSparse(0).getValuesList()).containsExactly(2f);
  }

  @Test
  void theClientRetriesUnavailableCallsAndGivesUpAfterItsAttempts() {
    ManagedChannel nowhere =
        InProcessChannelBuilder.forName("no-such-server-" + UUID.randomUUID()).build();
    try {
      long start = System.nanoTime();
      assertThatThrownBy(
              () ->
                  new EncoderClient(nowhere, new CallPolicy(java.time.Duration.ofSeconds(5), 3))
                      .encodeDense("m", List.of("x"), false, 0))
          .isInstanceOfSatisfying(
              StatusRuntimeException.class,
              e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE));
      // Two back-offs (200 ms, 400 ms) were waited before the third attempt failed.
      assertThat((System.nanoTime() - start) / 1_000_000).isGreaterThanOrEqualTo(600);
    } finally {
      nowhere.shutdownNow();
    }
  }

  @Test
  void sparseAndMultiVectorOutputsStreamInOrderedChunks() throws Exception {
    TinyModels.sparse(tmp.resolve("models"), "tiny-splade");
    TinyModels.multiVector(tmp.resolve("models"), "tiny-colbert");
    var sparse =
        stub.streamEncodeSparse(
            dev.tenbin.proto.encoder.v1.StreamEncodeSparseRequest.newBuilder()
                .setRequest(
                    dev.tenbin.proto.encoder.v1.EncodeSparseRequest.newBuilder()
                        .setModelId("tiny-splade")
                        .addTexts("apple")
                        .addTexts("banana")
                        .addTexts("cherry")
                        .setRole(InputRole.INPUT_ROLE_DOCUMENT))
                .setChunkSize(2)
                .build());
    List<Integer> offsets = new java.util.ArrayList<>();
    int vectors = 0;
    while (sparse.hasNext()) {
      var chunk = sparse.next();
      offsets.add(chunk.getOffset());
      vectors += chunk.getVectorsCount();
    }
    assertThat(offsets).containsExactly(0, 2);
    assertThat(vectors).isEqualTo(3);
    var multi =
        stub.streamEncodeMultiVector(
            dev.tenbin.proto.encoder.v1.StreamEncodeMultiVectorRequest.newBuilder()
                .setRequest(
                    dev.tenbin.proto.encoder.v1.EncodeMultiVectorRequest.newBuilder()
                        .setModelId("tiny-colbert")
                        .addTexts("apple banana")
                        .setRole(InputRole.INPUT_ROLE_QUERY))
                .build());
    var first = multi.next();
    assertThat(first.getVectors(0).getTokenCount()).isEqualTo(4);
    assertThat(first.getVectors(0).getValuesCount()).isEqualTo(4 * TinyModels.HIDDEN);
  }

  @Test
  void responsesCarryTimingMetadata() {
    var response =
        stub.encodeDense(
            EncodeDenseRequest.newBuilder()
                .setModelId("tiny-dense")
                .addTexts("apple")
                .setRole(InputRole.INPUT_ROLE_DOCUMENT)
                .build());
    assertThat(response.getMetadata().getInputTokens()).isEqualTo(3);
    assertThat(response.getMetadata().getInferenceNanos()).isPositive();
    assertThat(response.getMetadata().getBatchCount()).isEqualTo(1);
  }

  @Test
  void tokenizeAndModelInfoDescribeTheModel() {
    var tokens =
        stub.tokenize(
            TokenizeRequest.newBuilder()
                .setModelId("tiny-dense")
                .addTexts("apple")
                .setRole(InputRole.INPUT_ROLE_QUERY)
                .build());
    assertThat(tokens.getTexts(0).getTokensList())
        .containsExactly("[CLS]", "query", "apple", "[SEP]");
    var info = stub.getModelInfo(GetModelInfoRequest.newBuilder().setModelId("tiny-dense").build());
    assertThat(info.getCard().getRevision()).isEqualTo("test-rev");
    assertThat(info.getCard().getSource()).startsWith("dir:");
    assertThat(info.getExecutionProvider()).isEqualTo("CPU");
    assertThat(stub.listModels(ListModelsRequest.getDefaultInstance()).getModelsList())
        .extracting(m -> m.getId())
        .contains("tiny-dense", "bge-small-en-v1.5");
  }

  @Test
  void modelInfoCarriesTheProviderDeviceRuntimeAndTheModelFilesHash() {
    var info = stub.getModelInfo(GetModelInfoRequest.newBuilder().setModelId("tiny-dense").build());

    var provenance = info.getProvenance();
    assertThat(provenance.getExecutionProvider()).isEqualTo("CPU");
    assertThat(provenance.getDevice()).isEqualTo("cpu/" + System.getProperty("os.arch"));
    assertThat(provenance.getOnnxruntimeVersion())
        .isEqualTo(dev.tenbin.model.onnx.OnnxEnvironment.version())
        .isNotBlank();
    assertThat(provenance.getModelSha256())
        .isEqualTo(
            dev.tenbin.model.card.ModelDigest.of(
                dev.tenbin.model.card.LocalModelDirectory.load(
                    tmp.resolve("models").resolve("tiny-dense"))));
  }

  @Test
  void badInputIsInvalidArgumentOrNotFoundNamingTheField() {
    assertThatThrownBy(
            () ->
                stub.encodeDense(
                    EncodeDenseRequest.newBuilder()
                        .setModelId("tiny-dense")
                        .addTexts(" ")
                        .setRole(InputRole.INPUT_ROLE_DOCUMENT)
                        .build()))
        .isInstanceOfSatisfying(
            StatusRuntimeException.class,
            e -> {
              assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
              assertThat(StatusMapper.violatedField(e)).isEqualTo("texts[0]");
            });
    assertThatThrownBy(
            () ->
                stub.encodeDense(
                    EncodeDenseRequest.newBuilder()
                        .setModelId("nope")
                        .addTexts("x")
                        .setRole(InputRole.INPUT_ROLE_DOCUMENT)
                        .build()))
        .isInstanceOfSatisfying(
            StatusRuntimeException.class,
            e -> {
              assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.NOT_FOUND);
              assertThat(StatusMapper.violatedField(e)).isEqualTo("model_id");
            });
    assertThatThrownBy(
            () ->
                stub.encodeDense(
                    EncodeDenseRequest.newBuilder().setModelId("tiny-dense").addTexts("x").build()))
        .isInstanceOfSatisfying(
            StatusRuntimeException.class,
            e -> assertThat(StatusMapper.violatedField(e)).isEqualTo("role"));
  }
}
