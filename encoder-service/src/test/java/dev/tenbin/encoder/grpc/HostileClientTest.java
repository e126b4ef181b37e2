package dev.tenbin.encoder.grpc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenbin.encoder.config.EncoderServiceConfig;
import dev.tenbin.encoder.server.EncoderServer;
import dev.tenbin.proto.encoder.v1.EncoderServiceGrpc;
import dev.tenbin.testing.rpc.UndecodableRequests;
import io.grpc.ManagedChannel;
import io.grpc.ServiceDescriptor;
import io.grpc.Status;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What a hostile or broken client gets from the encoder service. */
class HostileClientTest {
  @TempDir Path tmp;
  private SimpleMeterRegistry registry;
  private EncoderServer.Embedded server;
  private ManagedChannel channel;

  @BeforeEach
  void start() {
    String name = "encoder-hostile-" + UUID.randomUUID();
    registry = new SimpleMeterRegistry();
    server =
        EncoderServer.startInProcess(
            name,
            EncoderServiceConfig.embedded(tmp.resolve("models"), tmp.resolve("cache")),
            registry);
    channel = InProcessChannelBuilder.forName(name).build();
  }

  @AfterEach
  void stop() {
    channel.shutdownNow();
    server.close();
  }

  @Test
  void undecodableBytesOnEveryRpcAreInvalidArgumentRecordedAsSuchWithNothingLoggedLoudly() {
    ServiceDescriptor service = EncoderServiceGrpc.getServiceDescriptor();

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
