package dev.tenbin.eval.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenbin.rpc.GrpcServerHost;
import dev.tenbin.rpc.HttpEndpoint;
import dev.tenbin.rpc.ServerSecurity;
import dev.tenbin.rpc.ServerSettings;
import dev.tenbin.testing.rpc.TestCertificates;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code tenbin job web}: a GET of a service's HTTP port through its TLS (trusting the given CA)
 * with the token file, as the chart's helm test and an operator inside the cluster use it.
 */
class JobWebCommandTest {
  private static final String TOKEN = "web-reader-0123456789abcdef";

  @TempDir Path tmp;

  @Test
  void getsAPageThroughTlsWithTheTokenAndSaysWhyWhenRefused() throws Exception {
    TestCertificates.Authority ca = TestCertificates.authority("tenbin-test-ca");
    TestCertificates.Issued server = ca.issue("localhost");
    Path caFile = ca.writeCertificate(tmp.resolve("ca.pem"));
    Path tokens = Files.writeString(tmp.resolve("tokens"), "# readers\n" + TOKEN + "\n");
    Path wrong = Files.writeString(tmp.resolve("wrong"), "not-the-token-0123456789\n");
    ServerSecurity security =
        ServerSecurity.plaintext()
            .withTls(
                server.writeCertificate(tmp.resolve("server.pem")),
                server.writeKey(tmp.resolve("server.key")),
                null)
            .withAuthTokenFile(tokens);
    HttpEndpoint.Route jobs =
        new HttpEndpoint.Route(
            "GET", "/api/jobs", body -> Map.of("jobs", List.of()), UnaryOperator.identity());
    try (GrpcServerHost host =
        GrpcServerHost.start(
            new ServerSettings("127.0.0.1", 0, -1, 1 << 20, Duration.ofSeconds(1))
                .withSecurity(security),
            List.of())) {
      host.serveHttp(0, List.of(jobs));
      String endpoint = "localhost:" + host.httpPort();
      String[] trusted = {"--endpoint", endpoint, "--tls-ca", caFile.toString()};

      CliRunner ok = web("/api/jobs", trusted, "--auth-token-file", tokens.toString());
      assertThat(ok.exitCode()).as(ok.err()).isZero();
      assertThat(ok.out()).isEqualTo("{\"jobs\":[]}");

      Path saved = tmp.resolve("jobs.json");
      CliRunner toFile =
          web(
              "/api/jobs",
              trusted,
              "--auth-token-file",
              tokens.toString(),
              "--out",
              saved.toString());
      assertThat(toFile.exitCode()).as(toFile.err()).isZero();
      assertThat(Files.readString(saved)).isEqualTo("{\"jobs\":[]}");

      CliRunner noToken = web("/api/jobs", trusted);
      assertThat(noToken.exitCode()).isEqualTo(1);
      assertThat(noToken.err()).contains("GET /api/jobs: HTTP 401");

      CliRunner wrongToken = web("/api/jobs", trusted, "--auth-token-file", wrong.toString());
      assertThat(wrongToken.exitCode()).isEqualTo(1);
      assertThat(wrongToken.err()).contains("HTTP 401").doesNotContain("not-the-token");

      CliRunner missing = web("/nope", trusted, "--auth-token-file", tokens.toString());
      assertThat(missing.exitCode()).isEqualTo(1);
      assertThat(missing.err()).contains("HTTP 404");

      // Another CA: the server's certificate is not trusted, and nothing is sent.
      Path otherCa =
          TestCertificates.authority("other-ca").writeCertificate(tmp.resolve("other.pem"));
      CliRunner untrusted =
          web(
              "/api/jobs",
              new String[] {"--endpoint", endpoint, "--tls-ca", otherCa.toString()},
              "--auth-token-file",
              tokens.toString());
      assertThat(untrusted.exitCode()).isEqualTo(1);
      assertThat(untrusted.err()).contains("failed").doesNotContain(TOKEN);

      CliRunner relative = web("api/jobs", trusted);
      assertThat(relative.exitCode()).isEqualTo(TenbinCli.EXIT_USAGE);
      assertThat(relative.err()).contains("PATH must start with /");
    }
  }

  private static CliRunner web(String path, String[] endpoint, String... more) {
    List<String> args = new java.util.ArrayList<>(List.of("job", "web", path));
    args.addAll(List.of(endpoint));
    args.addAll(List.of(more));
    return CliRunner.run(args.toArray(String[]::new));
  }
}
