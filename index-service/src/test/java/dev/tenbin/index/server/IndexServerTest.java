package dev.tenbin.index.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenbin.index.config.IndexServiceConfig;
import dev.tenbin.proto.index.v1.CollectionSpec;
import dev.tenbin.proto.index.v1.CreateCollectionRequest;
import dev.tenbin.proto.index.v1.IndexServiceGrpc;
import io.grpc.ManagedChannel;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

class IndexServerTest {
  @TempDir Path tmp;

  @Test
  void aDataDirItDidNotCreateIsRefusedWithExitCode2NamingTheFlag() throws Exception {
    Path home = Files.createDirectories(tmp.resolve("home"));
    Files.writeString(home.resolve("thesis.tex"), "years of work");
    StringWriter err = new StringWriter();
    CommandLine cli = new CommandLine(new IndexServer()).setErr(new PrintWriter(err, true));

    int exit = cli.execute("--data-dir", home.toString(), "--port", "0", "--metrics-port", "-1");

    assertThat(exit).isEqualTo(2);
    assertThat(err.toString())
        .contains("--data-dir " + home)
        .contains("'thesis.tex'")
        .contains("refused");
    assertThat(home.resolve("thesis.tex")).hasContent("years of work");
    try (var entries = Files.list(home)) {
      assertThat(entries).containsExactly(home.resolve("thesis.tex"));
    }
  }

  @Test
  void theEmbeddedServicePublishesItsCollectionGauges() {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    String name = "index-server-test-" + UUID.randomUUID();
    try (IndexServer.Embedded server =
        IndexServer.startInProcess(name, tmp.resolve("data"), registry)) {
      ManagedChannel channel = InProcessChannelBuilder.forName(name).directExecutor().build();
      try {
        IndexServiceGrpc.newBlockingStub(channel)
            .createCollection(
                CreateCollectionRequest.newBuilder()
                    .setSpec(CollectionSpec.newBuilder().setName("c"))
                    .build());
      } finally {
        channel.shutdownNow();
      }
      assertThat(
              registry
                  .get("tenbin.index.collection.documents")
                  .tag("collection", "c")
                  .gauge()
                  .value())
          .isZero();
      assertThat(registry.get("tenbin.index.collections").tag("state", "ready").gauge().value())
          .isEqualTo(1);
    }
  }

  private static IndexServiceConfig parse(String... args) {
    IndexServer server = new IndexServer();
    new CommandLine(server).parseArgs(args);
    return server.config();
  }

  @Test
  void everyOptionLandsInTheConfigRecordAndBadValuesAreRefusedNamingTheFlag() {
    IndexServiceConfig config =
        parse("--data-dir", "/d", "--max-top-k", "50", "--max-queries-per-request", "7");
    assertThat(config.dataDirectory()).isEqualTo(Path.of("/d"));
    assertThat(config.maxTopK()).isEqualTo(50);
    assertThat(config.maxQueriesPerRequest()).isEqualTo(7);
    assertThat(config.server().port()).isEqualTo(IndexServiceConfig.DEFAULT_PORT);
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> parse("--max-top-k", "0"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("--max-top-k must be at least 1");
    org.assertj.core.api.Assertions.assertThatThrownBy(
            () -> parse("--max-queries-per-request", "-3"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("--max-queries-per-request must be at least 1");
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> parse("--port", "65536"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("--port must be within 0..65535");
  }

  @Test
  void aStoppedServerHasClosedItsCatalogReleasingTheDataDirectory() {
    Path data = tmp.resolve("data");
    IndexServiceConfig config =
        parse("--data-dir", data.toString(), "--port", "0", "--metrics-port", "-1");
    IndexServer.Embedded running = IndexServer.start(config);
    try {
      org.assertj.core.api.Assertions.assertThatThrownBy(
              () -> dev.tenbin.index.collection.CollectionCatalog.open(data))
          .as("the running server holds the data directory")
          .hasMessageContaining("in use");
      running.host().close();
      dev.tenbin.index.collection.CollectionCatalog.open(data).close();
    } finally {
      running.close();
    }
  }
}
