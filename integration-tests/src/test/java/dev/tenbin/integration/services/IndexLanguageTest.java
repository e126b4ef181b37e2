package dev.tenbin.integration.services;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tenbin.client.index.IndexClient;
import dev.tenbin.core.InvalidInputException;
import dev.tenbin.eval.services.IndexLanguage;
import dev.tenbin.index.collection.CollectionCatalog;
import dev.tenbin.index.config.IndexServiceConfig;
import dev.tenbin.index.grpc.IndexGrpcService;
import dev.tenbin.rpc.ExceptionMappingInterceptor;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.Server;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.ServerInterceptors;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.grpc.inprocess.InProcessServerBuilder;
import java.nio.file.Path;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The orchestrator asks the index for a collection's language, and rides out a restarting index.
 */
class IndexLanguageTest {
  @TempDir Path tmp;

  /** Refuses the first {@code failures} calls with UNAVAILABLE. */
  private static ServerInterceptor unavailableFor(int failures, AtomicInteger calls) {
    return new ServerInterceptor() {
      @Override
      public <Q, R> ServerCall.Listener<Q> interceptCall(
          ServerCall<Q, R> call, Metadata headers, ServerCallHandler<Q, R> next) {
        if (calls.incrementAndGet() <= failures) {
          call.close(Status.UNAVAILABLE.withDescription("restarting"), new Metadata());
          return new ServerCall.Listener<>() {};
        }
        return next.startCall(call, headers);
      }
    };
  }

  private <T> T withIndex(int unavailableCalls, AtomicInteger calls, Function<IndexClient, T> body)
      throws Exception {
    String name = "index-language-" + UUID.randomUUID();
    try (CollectionCatalog catalog = CollectionCatalog.open(tmp.resolve("index"))) {
      Server server =
          InProcessServerBuilder.forName(name)
              .directExecutor()
              .addService(
                  ServerInterceptors.intercept(
                      new IndexGrpcService(
                          catalog, IndexServiceConfig.embedded(tmp.resolve("index"))),
                      new ExceptionMappingInterceptor(),
                      unavailableFor(unavailableCalls, calls)))
              .build()
              .start();
      ManagedChannel channel = InProcessChannelBuilder.forName(name).directExecutor().build();
      try {
        return body.apply(IndexClient.of(channel));
      } finally {
        channel.shutdownNow();
        server.shutdownNow();
      }
    }
  }

  @Test
  void theLanguageIsDetectedByTheIndexOnceItComesBack() throws Exception {
    AtomicInteger calls = new AtomicInteger();
    IndexLanguage language =
        withIndex(
            2,
            calls,
            index ->
                IndexLanguage.resolve(
                    index, null, max -> "Der Hund und die Katze sind nicht in dem Haus."));
    assertThat(language).isEqualTo(new IndexLanguage("de", true));
    assertThat(calls).hasValue(3);
  }

  @Test
  void aGivenCodeIsNormalisedAndAnUnknownOneIsTheCallersError() throws Exception {
    AtomicInteger calls = new AtomicInteger();
    IndexLanguage given =
        withIndex(0, calls, index -> IndexLanguage.resolve(index, "EN", max -> "unused"));
    IndexLanguage blank =
        withIndex(
            0, calls, index -> IndexLanguage.resolve(index, " ", max -> "Der Hund und die Katze"));
    assertThat(given).isEqualTo(new IndexLanguage("en", false));
    assertThat(blank).isEqualTo(new IndexLanguage("en", false));
    assertThatThrownBy(
            () -> withIndex(0, calls, index -> IndexLanguage.resolve(index, "klingon", max -> "")))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("unknown language 'klingon'");
  }

  @Test
  void anIndexThatStaysUnavailableFailsTheLookupAfterAFewAttempts() {
    AtomicInteger calls = new AtomicInteger();
    assertThatThrownBy(
            () -> withIndex(100, calls, index -> IndexLanguage.resolve(index, null, max -> "text")))
        .isInstanceOfSatisfying(
            StatusRuntimeException.class,
            e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE));
    assertThat(calls).hasValue(IndexLanguage.MAX_ATTEMPTS);
  }
}
