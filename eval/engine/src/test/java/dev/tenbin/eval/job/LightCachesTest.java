package dev.tenbin.eval.job;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tenbin.client.encoder.EncoderClient;
import dev.tenbin.core.PreconditionException;
import dev.tenbin.eval.retrieval.EncodeProgress;
import dev.tenbin.proto.encoder.v1.BuildLightCacheRequest;
import dev.tenbin.proto.encoder.v1.BuildLightCacheResponse;
import dev.tenbin.proto.encoder.v1.EncoderServiceGrpc;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.Status;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.grpc.inprocess.InProcessServerBuilder;
import io.grpc.stub.StreamObserver;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** A LightRetriever cache the encoder cannot build fails with the command that builds it. */
class LightCachesTest {
  private Server server;
  private ManagedChannel channel;

  @AfterEach
  void close() {
    channel.shutdownNow();
    server.shutdownNow();
  }

  @Test
  void aCacheTheEncoderCannotBuildNamesTheLightBuildCommand() throws Exception {
    String name = UUID.randomUUID().toString();
    server =
        InProcessServerBuilder.forName(name)
            .directExecutor()
            .addService(
                new EncoderServiceGrpc.EncoderServiceImplBase() {
                  @Override
                  public void buildLightCache(
                      BuildLightCacheRequest request,
                      StreamObserver<BuildLightCacheResponse> responses) {
                    responses.onError(
                        Status.FAILED_PRECONDITION
                            .withDescription("cache folder /ro is read-only")
                            .asRuntimeException());
                  }
                })
            .build()
            .start();
    channel = InProcessChannelBuilder.forName(name).directExecutor().build();
    LightCaches caches = new LightCaches(() -> EncoderClient.of(channel));

    assertThatThrownBy(() -> caches.ensure("tiny-dense", 128, EncodeProgress.NONE))
        .isInstanceOf(PreconditionException.class)
        .hasMessageContaining("token-embedding cache of tiny-dense at width 128 is missing")
        .hasMessageContaining("FAILED_PRECONDITION: cache folder /ro is read-only")
        .hasMessageContaining("nothing was encoded")
        .hasMessageContaining("tenbin light build --model tiny-dense --dimensions 128");
  }
}
