package dev.tenbin.client.encoder;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tenbin.client.CallPolicy;
import dev.tenbin.client.TestServers;
import dev.tenbin.rpc.ClientChannels;
import dev.tenbin.rpc.ClientSecurity;
import dev.tenbin.rpc.ServiceTarget;
import dev.tenbin.testing.rpc.TestCertificates;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.TlsServerCredentials;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link EncoderClient} over a TLS channel from {@link ClientChannels} to a loopback Netty server
 * with a certificate made in the test: answered when the client trusts the server's CA and the name
 * matches, refused (UNAVAILABLE, nothing reaching the service) otherwise.
 */
class EncoderClientTlsTest {
  @TempDir Path tmp;

  private final CountingEncoder encoder = new CountingEncoder(7, false);
  private Server server;
  private Path ca;

  @BeforeEach
  void startATlsServer() throws Exception {
    TestCertificates.Authority authority = TestCertificates.authority("tenbin test CA");
    TestCertificates.Issued issued = authority.issue("tenbin-encoder");
    ca = authority.writeCertificate(tmp.resolve("ca.pem"));
    Path cert = issued.writeCertificate(tmp.resolve("server.pem"));
    Path key = issued.writeKey(tmp.resolve("server.key"));
    server =
        TestServers.loopback(TlsServerCredentials.create(cert.toFile(), key.toFile()), encoder);
  }

  @AfterEach
  void stop() throws InterruptedException {
    TestServers.stop(server);
  }

  private List<float[]> encodeOver(ClientSecurity security, String host) throws Exception {
    ManagedChannel channel =
        ClientChannels.open(
            ServiceTarget.direct(host, server.getPort()),
            security,
            ClientChannels.DEFAULT_MAX_INBOUND_MESSAGE_BYTES);
    try {
      return new EncoderClient(channel, new CallPolicy(Duration.ofSeconds(10), 1))
          .encodeDense("m", List.of("a", "b"), false, 0);
    } finally {
      TestServers.stop(channel);
    }
  }

  @Test
  void aClientTrustingTheServersCaIsAnswered() throws Exception {
    assertThat(encodeOver(ClientSecurity.trusting(ca), "localhost"))
        .containsExactly(new float[] {7}, new float[] {7});
    assertThat(encodeOver(ClientSecurity.trusting(ca), "127.0.0.1")).hasSize(2);
    assertThat(encoder.calls).hasValue(2);
  }

  private void assertRefused(ClientSecurity security, String host) {
    assertThatThrownBy(() -> encodeOver(security, host))
        .isInstanceOfSatisfying(
            StatusRuntimeException.class,
            e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE));
  }

  @Test
  void aServerSignedByAnotherCaIsRefused() throws Exception {
    Path otherCa =
        TestCertificates.authority("another CA").writeCertificate(tmp.resolve("other-ca.pem"));
    assertRefused(ClientSecurity.trusting(otherCa), "localhost");
    assertThat(encoder.calls).as("nothing reached the service").hasValue(0);
  }

  @Test
  void anUntrustedServerCertificateFailsTheFirstAttemptWithoutRetries() throws Exception {
    Path otherCa =
        TestCertificates.authority("another CA").writeCertificate(tmp.resolve("other-ca.pem"));
    ManagedChannel channel =
        ClientChannels.open(
            ServiceTarget.direct("localhost", server.getPort()),
            ClientSecurity.trusting(otherCa),
            ClientChannels.DEFAULT_MAX_INBOUND_MESSAGE_BYTES);
    long start = System.nanoTime();
    try {
      // Five attempts would back off 200 + 400 + 800 + 1600 ms before failing.
      EncoderClient client = new EncoderClient(channel, new CallPolicy(Duration.ofSeconds(10), 5));
      assertThatThrownBy(() -> client.encodeDense("m", List.of("a"), false, 0))
          .isInstanceOfSatisfying(
              StatusRuntimeException.class,
              e -> {
                assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE);
                assertThat(e.getStatus().getDescription()).contains("certificate is not trusted");
              });
    } finally {
      TestServers.stop(channel);
    }
    assertThat(Duration.ofNanos(System.nanoTime() - start).toMillis())
        .as("no backoff before failing")
        .isLessThan(2_000L);
    assertThat(encoder.calls).hasValue(0);
  }

  @Test
  void aServerWhoseCertificateNamesAnotherHostIsRefused() {
    assertRefused(ClientSecurity.trusting(ca).withServerName("tenbin-index"), "localhost");
    assertThat(encoder.calls).hasValue(0);
  }

  @Test
  void aPlaintextClientIsNotServed() {
    assertRefused(ClientSecurity.plaintext(), "localhost");
    assertThat(encoder.calls).hasValue(0);
  }
}
