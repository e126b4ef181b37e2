package dev.tenbin.rpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tenbin.rpc.testing.TestService;
import dev.tenbin.testing.rpc.TestCertificates;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthCheckResponse;
import io.grpc.health.v1.HealthGrpc;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Bearer tokens checked by {@link BearerAuthInterceptor} and sent by {@link
 * BearerTokenCredentials}.
 */
class BearerAuthTest {
  private static final String ALICE = "alice-0123456789abcdef";
  private static final String BOB = "bob-0123456789abcdef";
  private static final String CAROL = "carol-0123456789abcdef";

  @TempDir Path tmp;
  private GrpcServerHost host;

  @AfterEach
  void stop() {
    if (host != null) {
      host.close();
    }
  }

  private Path tokens(String name, String text) throws Exception {
    return Files.writeString(tmp.resolve(name), text);
  }

  private void start(Path tokenFile) {
    host =
        GrpcServerHost.start(
            new ServerSettings("127.0.0.1", 0, 0, 1 << 20, Duration.ofSeconds(1))
                .withSecurity(ServerSecurity.plaintext().withAuthTokenFile(tokenFile)),
            List.of(new TestService()));
  }

  private void check(ClientSecurity security) {
    ManagedChannel channel = ClientChannels.open("127.0.0.1", host.port(), security, 1 << 20);
    try {
      TestService.check(channel, "ok");
    } finally {
      channel.shutdownNow();
    }
  }

  private Path clientToken(String token) throws Exception {
    return tokens("client-" + token.substring(0, 3), "# my token\n\n" + token + "\n");
  }

  @Test
  void aMissingOrWrongTokenIsUnauthenticatedAndTheRightOneIsLetThrough() throws Exception {
    start(tokens("tokens", "# service tokens\n" + ALICE + "\n\n  " + BOB + "  \n"));
    assertThatThrownBy(() -> check(ClientSecurity.plaintext()))
        .isInstanceOfSatisfying(
            StatusRuntimeException.class,
            e -> {
              assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAUTHENTICATED);
              assertThat(e.getStatus().getDescription()).contains("authorization: Bearer <token>");
            });
    assertThatThrownBy(() -> check(ClientSecurity.plaintext().withTokenFile(clientToken(CAROL))))
        .isInstanceOfSatisfying(
            StatusRuntimeException.class,
            e -> {
              assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAUTHENTICATED);
              assertThat(e.getStatus().getDescription()).isEqualTo("invalid bearer token");
            });
    check(ClientSecurity.plaintext().withTokenFile(clientToken(ALICE)));
    check(ClientSecurity.plaintext().withTokenFile(clientToken(BOB)));
    assertThat(GrpcServerHostTest.scrape(host))
        .contains("tenbin_rpc_calls_unauthenticated_total 2.0");
  }

  @Test
  void healthStaysOpenWithoutAToken() throws Exception {
    start(tokens("tokens", ALICE + "\n"));
    ManagedChannel channel =
        ClientChannels.open("127.0.0.1", host.port(), ClientSecurity.plaintext(), 1 << 20);
    try {
      assertThat(
              HealthGrpc.newBlockingStub(channel)
                  .check(HealthCheckRequest.getDefaultInstance())
                  .getStatus())
          .isEqualTo(HealthCheckResponse.ServingStatus.SERVING);
    } finally {
      channel.shutdownNow();
    }
  }

  @Test
  void aChangedTokenFileTakesEffectWithoutARestart() throws Exception {
    Path file = tokens("tokens", ALICE + "\n");
    start(file);
    ClientSecurity asAlice = ClientSecurity.plaintext().withTokenFile(clientToken(ALICE));
    ClientSecurity asBob = ClientSecurity.plaintext().withTokenFile(clientToken(BOB));
    check(asAlice);
    assertThatThrownBy(() -> check(asBob)).isInstanceOf(StatusRuntimeException.class);

    Files.writeString(file, "# rotated: alice revoked\n" + BOB + "\n");
    TransportSecurityTest.awaitSuccess(() -> check(asBob));
    assertThatThrownBy(() -> check(asAlice))
        .isInstanceOfSatisfying(
            StatusRuntimeException.class,
            e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAUTHENTICATED));
  }

  @Test
  void tokensAndTlsTogether() throws Exception {
    TestCertificates.Authority ca = TestCertificates.authority("ca");
    TestCertificates.Issued server = ca.issue("server");
    host =
        GrpcServerHost.start(
            new ServerSettings("127.0.0.1", 0, -1, 1 << 20, Duration.ofSeconds(1))
                .withSecurity(
                    ServerSecurity.plaintext()
                        .withTls(
                            server.writeCertificate(tmp.resolve("s.pem")),
                            server.writeKey(tmp.resolve("s.key")),
                            null)
                        .withAuthTokenFile(tokens("tokens", ALICE + "\n"))),
            List.of(new TestService()));
    ManagedChannel channel =
        ClientChannels.open(
            "localhost",
            host.port(),
            ClientSecurity.trusting(ca.writeCertificate(tmp.resolve("ca.pem")))
                .withTokenFile(clientToken(ALICE)),
            1 << 20);
    try {
      TestService.check(channel, "ok");
    } finally {
      channel.shutdownNow();
    }
  }

  @Test
  void aClientNeverSendsItsTokenInPlaintextToARemoteHost() throws Exception {
    start(tokens("tokens", ALICE + "\n"));
    // Plaintext to an address that is loopback, but named as a remote host: the token stays home.
    ManagedChannel channel =
        NettyChannelBuilder.forAddress("127.0.0.1", host.port())
            .usePlaintext()
            .overrideAuthority("index.example.org:50052")
            .build();
    try {
      assertThatThrownBy(
              () ->
                  io.grpc.stub.ClientCalls.blockingUnaryCall(
                      channel,
                      TestService.CHECK,
                      io.grpc.CallOptions.DEFAULT.withCallCredentials(
                          new BearerTokenCredentials(clientToken(ALICE))),
                      com.google.protobuf.StringValue.of("ok")))
          .isInstanceOfSatisfying(
              StatusRuntimeException.class,
              e -> {
                assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAUTHENTICATED);
                assertThat(e.getStatus().getDescription())
                    .contains("refusing to send a bearer token in plaintext");
              });
    } finally {
      channel.shutdownNow();
    }
  }

  @Test
  void tokenFilesAreCheckedAtStart() throws Exception {
    assertThatThrownBy(() -> start(tmp.resolve("missing")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("--auth-token-file")
        .hasMessageContaining("missing");
    assertThatThrownBy(() -> start(tokens("empty", "# nothing yet\n\n")))
        .hasMessageContaining("holds no token");
    assertThatThrownBy(() -> start(tokens("short", "secret\n")))
        .hasMessageContaining("line 1")
        .hasMessageContaining("at least 16 characters")
        .hasMessageNotContaining("secret");
  }
}
