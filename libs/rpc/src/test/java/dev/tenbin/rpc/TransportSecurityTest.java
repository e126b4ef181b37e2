package dev.tenbin.rpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tenbin.rpc.testing.TestService;
import dev.tenbin.testing.rpc.TestCertificates;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** TLS and mutual TLS between {@link GrpcServerHost} and {@link ClientChannels}. */
class TransportSecurityTest {
  @TempDir Path tmp;

  private final TestCertificates.Authority serverCa = TestCertificates.authority("server-ca");
  private final TestCertificates.Authority clientCa = TestCertificates.authority("client-ca");
  private final TestCertificates.Authority strangerCa = TestCertificates.authority("stranger-ca");

  private GrpcServerHost start(ServerSecurity security) {
    return GrpcServerHost.start(
        new ServerSettings("127.0.0.1", 0, -1, 1 << 20, Duration.ofSeconds(1))
            .withSecurity(security),
        List.of(new TestService()));
  }

  private ServerSecurity tls(TestCertificates.Issued server, Path clientCaFile) {
    return ServerSecurity.plaintext()
        .withTls(
            server.writeCertificate(tmp.resolve("server.pem")),
            server.writeKey(tmp.resolve("server.key")),
            clientCaFile)
        .withReloadInterval(Duration.ofMillis(100));
  }

  private static void check(GrpcServerHost host, ClientSecurity security) {
    ManagedChannel channel = ClientChannels.open("localhost", host.port(), security, 1 << 20);
    try {
      TestService.check(channel, "ok");
    } finally {
      channel.shutdownNow();
    }
  }

  private static Consumer<StatusRuntimeException> code(Status.Code expected) {
    return e -> assertThat(e.getStatus().getCode()).isEqualTo(expected);
  }

  @Test
  void aPlaintextClientCannotTalkToATlsServer() {
    try (GrpcServerHost host = start(tls(serverCa.issue("server"), null))) {
      assertThatThrownBy(() -> check(host, ClientSecurity.plaintext()))
          .isInstanceOfSatisfying(StatusRuntimeException.class, code(Status.Code.UNAVAILABLE));
    }
  }

  @Test
  void aTlsClientTrustingTheServersCaSucceedsAndOneTrustingAnotherCaFails() {
    try (GrpcServerHost host = start(tls(serverCa.issue("server"), null))) {
      check(host, ClientSecurity.trusting(serverCa.writeCertificate(tmp.resolve("ca.pem"))));
      assertThatThrownBy(
              () ->
                  check(
                      host,
                      ClientSecurity.trusting(
                          strangerCa.writeCertificate(tmp.resolve("other.pem")))))
          .isInstanceOfSatisfying(StatusRuntimeException.class, code(Status.Code.UNAVAILABLE));
    }
  }

  @Test
  void theServerNameIsVerified() {
    try (GrpcServerHost host = start(tls(serverCa.issue("server"), null))) {
      ClientSecurity wrongName =
          ClientSecurity.trusting(serverCa.writeCertificate(tmp.resolve("ca.pem")))
              .withServerName("index.example.org");
      assertThatThrownBy(() -> check(host, wrongName))
          .isInstanceOfSatisfying(StatusRuntimeException.class, code(Status.Code.UNAVAILABLE));
    }
  }

  @Test
  void mutualTlsRefusesClientsWithoutATrustedCertificateAndAcceptsTrustedOnes() {
    Path clientCaFile = clientCa.writeCertificate(tmp.resolve("client-ca.pem"));
    try (GrpcServerHost host = start(tls(serverCa.issue("server"), clientCaFile))) {
      ClientSecurity trustingServer =
          ClientSecurity.trusting(serverCa.writeCertificate(tmp.resolve("ca.pem")));
      assertThatThrownBy(() -> check(host, trustingServer))
          .as("no client certificate")
          .isInstanceOfSatisfying(StatusRuntimeException.class, code(Status.Code.UNAVAILABLE));

      TestCertificates.Issued stranger = strangerCa.issue("mallory");
      ClientSecurity untrusted =
          trustingServer.withClientCertificate(
              stranger.writeCertificate(tmp.resolve("mallory.pem")),
              stranger.writeKey(tmp.resolve("mallory.key")));
      assertThatThrownBy(() -> check(host, untrusted))
          .as("a client certificate from a CA the server does not trust")
          .isInstanceOfSatisfying(StatusRuntimeException.class, code(Status.Code.UNAVAILABLE));

      TestCertificates.Issued alice = clientCa.issue("alice");
      check(
          host,
          trustingServer.withClientCertificate(
              alice.writeCertificate(tmp.resolve("alice.pem")),
              alice.writeKey(tmp.resolve("alice.key"))));
    }
  }

  @Test
  void aRotatedServerCertificateIsServedWithoutARestart() throws Exception {
    try (GrpcServerHost host = start(tls(serverCa.issue("server"), null))) {
      ClientSecurity oldTrust =
          ClientSecurity.trusting(serverCa.writeCertificate(tmp.resolve("ca.pem")));
      ClientSecurity newTrust =
          ClientSecurity.trusting(strangerCa.writeCertificate(tmp.resolve("new-ca.pem")));
      check(host, oldTrust);

      // Rotate: a certificate from another CA, with a new key, written over the same files.
      TestCertificates.Issued rotated = strangerCa.issue("server-2");
      rotated.writeKey(tmp.resolve("server.key"));
      rotated.writeCertificate(tmp.resolve("server.pem"));
      FileTime later = FileTime.from(Instant.now().plusSeconds(5));
      Files.setLastModifiedTime(tmp.resolve("server.key"), later);
      Files.setLastModifiedTime(tmp.resolve("server.pem"), later);

      awaitSuccess(() -> check(host, newTrust));
      assertThatThrownBy(() -> check(host, oldTrust))
          .isInstanceOfSatisfying(StatusRuntimeException.class, code(Status.Code.UNAVAILABLE));
    }
  }

  @Test
  void aRotatedClientCaIsTrustedWithoutARestart() throws Exception {
    Path clientCaFile = clientCa.writeCertificate(tmp.resolve("client-ca.pem"));
    try (GrpcServerHost host = start(tls(serverCa.issue("server"), clientCaFile))) {
      ClientSecurity trustingServer =
          ClientSecurity.trusting(serverCa.writeCertificate(tmp.resolve("ca.pem")));
      TestCertificates.Issued bob = strangerCa.issue("bob");
      ClientSecurity asBob =
          trustingServer.withClientCertificate(
              bob.writeCertificate(tmp.resolve("bob.pem")), bob.writeKey(tmp.resolve("bob.key")));
      assertThatThrownBy(() -> check(host, asBob)).isInstanceOf(StatusRuntimeException.class);

      strangerCa.writeCertificate(clientCaFile);
      Files.setLastModifiedTime(clientCaFile, FileTime.from(Instant.now().plusSeconds(5)));
      awaitSuccess(() -> check(host, asBob));
    }
  }

  @Test
  void aHalfWrittenRotationKeepsServingThePreviousCertificate() throws Exception {
    try (GrpcServerHost host = start(tls(serverCa.issue("server"), null))) {
      ClientSecurity trust =
          ClientSecurity.trusting(serverCa.writeCertificate(tmp.resolve("ca.pem")));
      // A new certificate whose key has not been written yet: it does not match the old key.
      strangerCa.issue("server-2").writeCertificate(tmp.resolve("server.pem"));
      Files.setLastModifiedTime(
          tmp.resolve("server.pem"), FileTime.from(Instant.now().plusSeconds(5)));
      Thread.sleep(500); // several reload checks
      check(host, trust);
    }
  }

  @Test
  void badTlsFilesAreClearErrorsAtStart() {
    TestCertificates.Issued server = serverCa.issue("server");
    Path cert = server.writeCertificate(tmp.resolve("server.pem"));
    Path otherKey = serverCa.issue("other").writeKey(tmp.resolve("other.key"));
    assertThatThrownBy(() -> start(ServerSecurity.plaintext().withTls(cert, otherKey, null)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("--tls-key")
        .hasMessageContaining("does not belong to the certificate");
    assertThatThrownBy(
            () -> start(ServerSecurity.plaintext().withTls(cert, tmp.resolve("missing.key"), null)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("--tls-key")
        .hasMessageContaining("missing.key");
    assertThatThrownBy(() -> start(ServerSecurity.plaintext().withTls(cert, cert, null)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("not a PEM private key");
    assertThatThrownBy(
            () -> new ServerSecurity(cert, null, null, null, Duration.ofSeconds(1), false))
        .hasMessageContaining("--tls-cert and --tls-key go together");
  }

  @Test
  void plaintextOnAReachableAddressIsRefusedUnlessAllowed() {
    ServerSettings open = new ServerSettings("0.0.0.0", 0, -1, 1 << 20, Duration.ofSeconds(1));
    assertThatThrownBy(() -> GrpcServerHost.start(open, List.of(new TestService())))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("refusing to serve plaintext on 0.0.0.0")
        .hasMessageContaining("--allow-plaintext");
    ServerSecurity allowed =
        new ServerSecurity(null, null, null, null, Duration.ofSeconds(1), true);
    try (GrpcServerHost host =
        GrpcServerHost.start(open.withSecurity(allowed), List.of(new TestService()))) {
      check(host, ClientSecurity.plaintext());
    }
  }

  /** Retries {@code step} until it passes (a hang guard of 20 s, not a timing assertion). */
  static void awaitSuccess(Runnable step) throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
    while (true) {
      try {
        step.run();
        return;
      } catch (RuntimeException | AssertionError failure) {
        if (System.nanoTime() > deadline) {
          throw failure;
        }
        Thread.sleep(100);
      }
    }
  }
}
