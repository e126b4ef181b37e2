package dev.tenbin.index.grpc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenbin.index.server.IndexServer;
import dev.tenbin.proto.index.v1.IndexServiceGrpc;
import dev.tenbin.rpc.testing.UndecodableRequests;
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

/** What a hostile or broken client gets from the index service, and what it leaves behind. */
class HostileClientTest {
  @TempDir Path data;
  private SimpleMeterRegistry registry;
  private IndexServer.Embedded server;
  private ManagedChannel channel;

  @BeforeEach
  void start() {
    String name = "index-hostile-" + UUID.randomUUID();
    registry = new SimpleMeterRegistry();
    server = IndexServer.startInProcess(name, data, registry);
    channel = InProcessChannelBuilder.forName(name).build();
  }

  @AfterEach
  void stop() {
    channel.shutdownNow();
    server.close();
  }

  @Test
  void undecodableBytesOnEveryRpcAreInvalidArgumentRecordedAsSuchWithNothingLoggedLoudly() {
    ServiceDescriptor service = IndexServiceGrpc.getServiceDescriptor();

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
