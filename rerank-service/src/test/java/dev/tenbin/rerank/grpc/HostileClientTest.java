package dev.tenbin.rerank.grpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tenbin.model.ModelPolicy;
import dev.tenbin.model.hub.HubDownloader;
import dev.tenbin.model.onnx.OnnxModel;
import dev.tenbin.proto.rerank.v1.Candidate;
import dev.tenbin.proto.rerank.v1.RerankRequest;
import dev.tenbin.proto.rerank.v1.RerankServiceGrpc;
import dev.tenbin.rerank.RerankCore;
import dev.tenbin.rerank.cross.RerankerRegistry;
import dev.tenbin.rpc.GrpcServerHost;
import dev.tenbin.rpc.StatusMapper;
import dev.tenbin.testing.rpc.UndecodableRequests;
import io.grpc.ManagedChannel;
import io.grpc.ServiceDescriptor;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What a hostile or broken client gets from the rerank service. */
class HostileClientTest {
  @TempDir Path tmp;
  private SimpleMeterRegistry registry;
  private RerankCore core;
  private GrpcServerHost host;
  private ManagedChannel channel;

  @BeforeEach
  void start() throws Exception {
    RerankerRegistry rerankers =
        new RerankerRegistry(
            Files.createDirectories(tmp.resolve("models")),
            new HubDownloader("http://127.0.0.1:9", tmp.resolve("cache"), null),
            OnnxModel.RuntimeOptions.cpu(1),
            8192,
            ModelPolicy.of(List.of("local:*"), 0));
    core =
        new RerankCore(
            rerankers,
            () -> {
              throw new IllegalStateException("no encoder in this test");
            },
            1000);
    String name = "rerank-hostile-" + UUID.randomUUID();
    registry = new SimpleMeterRegistry();
    host = GrpcServerHost.startInProcess(name, registry, List.of(new RerankGrpcService(core)));
    channel = InProcessChannelBuilder.forName(name).build();
  }

  @AfterEach
  void stop() {
    channel.shutdownNow();
    host.close();
    core.close();
  }

  @Test
  void aPrecisionThisServiceDoesNotKnowIsRefusedNamingTheField() {
    RerankRequest request =
        RerankRequest.newBuilder()
            .setModelId("any-model")
            .setQuery("q")
            .addCandidates(Candidate.newBuilder().setDocId("d1").setText("text"))
            .setPrecisionValue(9)
            .build();

    assertThatThrownBy(() -> RerankServiceGrpc.newBlockingStub(channel).rerank(request))
        .isInstanceOfSatisfying(
            StatusRuntimeException.class,
            e -> {
              assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
              assertThat(StatusMapper.violatedField(e)).isEqualTo("precision");
            });
  }

  @Test
  void undecodableBytesOnEveryRpcAreInvalidArgumentRecordedAsSuchWithNothingLoggedLoudly() {
    ServiceDescriptor service = RerankServiceGrpc.getServiceDescriptor();

    UndecodableRequests.Report report = UndecodableRequests.sendToEveryMethod(channel, service);

    assertThat(report.answers()).hasSize(service.getMethods().size());
    assertThat(report.answers())
        .allSatisfy(
            answer ->
                assertThat(answer.status().getCode())
                    .as(answer.method())
                    .isEqualTo(Status.Code.INVALID_ARGUMENT));
    assertThat(UndecodableRequests.recordedStatusCodes(registry, service))
        .hasSize(service.getMethods().size())
        .containsOnly("INVALID_ARGUMENT");
    assertThat(report.loud()).isEmpty();
    assertThat(report.events()).hasSizeLessThanOrEqualTo(report.answers().size());
  }
}
