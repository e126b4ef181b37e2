package dev.tenbin.encoder.grpc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenbin.client.encoder.EncoderClient;
import dev.tenbin.encoder.config.EncoderServiceConfig;
import dev.tenbin.encoder.server.EncoderServer;
import dev.tenbin.proto.encoder.v1.EncoderServiceGrpc;
import dev.tenbin.proto.encoder.v1.EncodingPolicy;
import dev.tenbin.proto.encoder.v1.GetModelInfoRequest;
import dev.tenbin.testing.models.TinyModels;
import io.grpc.ManagedChannel;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** GetModelInfo reports the batch-invariance probe, and the policy holds over the service. */
class BatchInvarianceOverGrpcTest {
  @TempDir Path tmp;
  EncoderServer.Embedded server;
  ManagedChannel channel;
  EncoderServiceGrpc.EncoderServiceBlockingStub stub;

  @BeforeEach
  void start() throws Exception {
    TinyModels.dense(tmp.resolve("models"), "tiny-dense", false);
    Path dependent = TinyModels.batchDependent(tmp.resolve("models"), "tiny-batch-dependent");
    // Files settled an hour ago, so a later process may answer from the remembered entry.
    FileTime hourAgo = FileTime.from(Instant.now().minusSeconds(3600));
    try (Stream<Path> files = Files.list(dependent)) {
      for (Path file : files.toList()) {
        Files.setLastModifiedTime(file, hourAgo);
      }
    }
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
  void modelInfoReportsTheProbeAndTheEncodingPolicy() {
    var dependent =
        stub.getModelInfo(
                GetModelInfoRequest.newBuilder().setModelId("tiny-batch-dependent").build())
            .getBatchInvariance();
    assertThat(dependent.getInvariant()).isFalse();
    assertThat(dependent.getPolicy()).isEqualTo(EncodingPolicy.ENCODING_POLICY_ONE_TEXT_PER_PASS);
    assertThat(dependent.getComparedOutputs()).isEqualTo(6);
    assertThat(dependent.getDifferingOutputs()).isPositive();
    assertThat(dependent.getCompared()).contains("outputs compared bit for bit");
    var invariant =
        stub.getModelInfo(GetModelInfoRequest.newBuilder().setModelId("tiny-dense").build())
            .getBatchInvariance();
    assertThat(invariant.getInvariant()).isTrue();
    assertThat(invariant.getPolicy()).isEqualTo(EncodingPolicy.ENCODING_POLICY_BATCHED);
    assertThat(invariant.getDifferingOutputs()).isZero();
  }

  @Test
  void aBatchDependentModelGivesATextTheSameBitsOverTheServiceWhateverItsRequest() {
    EncoderClient client = EncoderClient.of(channel);
    List<String> texts = List.of("cherry date elder fig grape", "apple banana", "fig");
    List<float[]> together = client.encodeDense("tiny-batch-dependent", texts, false, 0);
    List<float[]> streamed =
        client.streamEncodeDense("tiny-batch-dependent", texts, false, 2, done -> {});
    for (int i = 0; i < texts.size(); i++) {
      float[] alone =
          client.encodeDense("tiny-batch-dependent", List.of(texts.get(i)), false, 0).getFirst();
      assertThat(together.get(i)).isEqualTo(alone);
      assertThat(streamed.get(i)).isEqualTo(alone);
    }
  }

  @Test
  void theRememberedAnswerOfAnotherProcessCarriesTheSameProbe() {
    var first =
        stub.getModelInfo(
            GetModelInfoRequest.newBuilder().setModelId("tiny-batch-dependent").build());
    server.close();
    String name = "encoder-" + UUID.randomUUID();
    server =
        EncoderServer.startInProcess(
            name,
            EncoderServiceConfig.embedded(tmp.resolve("models"), tmp.resolve("cache")),
            new SimpleMeterRegistry());
    channel.shutdownNow();
    channel = InProcessChannelBuilder.forName(name).directExecutor().build();
    var again =
        EncoderServiceGrpc.newBlockingStub(channel)
            .getModelInfo(
                GetModelInfoRequest.newBuilder().setModelId("tiny-batch-dependent").build());
    assertThat(server.core().loadedModels()).doesNotContain("tiny-batch-dependent");
    assertThat(again.getBatchInvariance()).isEqualTo(first.getBatchInvariance());
  }
}
