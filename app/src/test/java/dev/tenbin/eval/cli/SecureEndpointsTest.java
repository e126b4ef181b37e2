package dev.tenbin.eval.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenbin.proto.eval.v1.EvalServiceGrpc;
import dev.tenbin.proto.eval.v1.GetJobRequest;
import dev.tenbin.proto.eval.v1.GetJobResponse;
import dev.tenbin.proto.eval.v1.Job;
import dev.tenbin.proto.eval.v1.JobState;
import dev.tenbin.proto.index.v1.IndexServiceGrpc;
import dev.tenbin.proto.index.v1.ListCollectionsRequest;
import dev.tenbin.rpc.ClientChannels;
import dev.tenbin.rpc.ClientSecurity;
import dev.tenbin.rpc.GrpcServerHost;
import dev.tenbin.rpc.ServerSecurity;
import dev.tenbin.rpc.ServerSettings;
import dev.tenbin.testing.rpc.TestCertificates;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthCheckResponse;
import io.grpc.health.v1.HealthGrpc;
import io.grpc.stub.StreamObserver;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.assertj.core.api.Assertions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The CLI and {@code tenbin serve} with TLS and bearer tokens. */
class SecureEndpointsTest {
  private static final String TOKEN = "job-runner-0123456789abcdef";

  @TempDir Path tmp;

  /** An eval service that knows one job; enough to see whether a client got through. */
  private static final class OneJob extends EvalServiceGrpc.EvalServiceImplBase {
    @Override
    public void getJob(GetJobRequest request, StreamObserver<GetJobResponse> response) {
      response.onNext(
          GetJobResponse.newBuilder()
              .setJob(
                  Job.newBuilder()
                      .setId(request.getJobId())
                      .setState(JobState.JOB_STATE_SUCCEEDED)
                      .setCellsDone(3)
                      .setCellsTotal(3))
              .build());
      response.onCompleted();
    }
  }

  @Test
  void statusReachesATlsEvalServiceWithAToken() throws Exception {
    TestCertificates.Authority ca = TestCertificates.authority("tenbin-test-ca");
    TestCertificates.Issued server = ca.issue("eval");
    Path caFile = ca.writeCertificate(tmp.resolve("ca.pem"));
    Path tokens = Files.writeString(tmp.resolve("tokens"), "# eval clients\n" + TOKEN + "\n");
    Path wrong = Files.writeString(tmp.resolve("wrong"), "not-the-token-0123456789\n");
    ServerSecurity security =
        ServerSecurity.plaintext()
            .withTls(
                server.writeCertificate(tmp.resolve("eval.pem")),
                server.writeKey(tmp.resolve("eval.key")),
                null)
            .withAuthTokenFile(tokens);
    try (GrpcServerHost host =
        GrpcServerHost.start(
            new ServerSettings("127.0.0.1", 0, -1, 1 << 20, Duration.ofSeconds(1))
                .withSecurity(security),
            List.of(new OneJob()))) {
      String endpoint = "localhost:" + host.port();

      CliRunner ok =
          CliRunner.run(
              "job",
              "status",
              "job-1",
              "--endpoint",
              endpoint,
              "--tls-ca",
              caFile.toString(),
              "--auth-token-file",
              tokens.toString());
      assertThat(ok.exitCode()).as(ok.err()).isZero();
      assertThat(ok.out()).contains("job-1 succeeded: 3/3 cells");

      CliRunner wrongToken =
          CliRunner.run(
              "job",
              "status",
              "job-1",
              "--endpoint",
              endpoint,
              "--tls-ca",
              caFile.toString(),
              "--auth-token-file",
              wrong.toString());
      assertThat(wrongToken.exitCode()).isEqualTo(TenbinCli.EXIT_FAILURE);
      assertThat(wrongToken.err()).contains("UNAUTHENTICATED").doesNotContain("not-the-token");

      CliRunner noToken =
          CliRunner.run(
              "job", "status", "job-1", "--endpoint", endpoint, "--tls-ca", caFile.toString());
      assertThat(noToken.exitCode()).isEqualTo(TenbinCli.EXIT_FAILURE);
      assertThat(noToken.err()).contains("UNAUTHENTICATED");

      CliRunner plaintext =
          CliRunner.run(
              "job",
              "status",
              "job-1",
              "--endpoint",
              endpoint,
              "--auth-token-file",
              tokens.toString());
      assertThat(plaintext.exitCode()).isEqualTo(TenbinCli.EXIT_FAILURE);
      assertThat(plaintext.err()).contains("UNAVAILABLE").doesNotContain(TOKEN);

      CliRunner missingCa =
          CliRunner.run(
              "job",
              "status",
              "job-1",
              "--endpoint",
              endpoint,
              "--tls-ca",
              tmp.resolve("nope.pem").toString());
      assertThat(missingCa.exitCode()).isEqualTo(TenbinCli.EXIT_USAGE);
      assertThat(missingCa.err()).contains("--tls-ca").contains("nope.pem");
    }
  }

  @Test
  void serveIndexWithTlsAndTokensAsARealProcess() throws Exception {
    TestCertificates.Authority ca = TestCertificates.authority("tenbin-test-ca");
    TestCertificates.Issued server = ca.issue("index");
    Path caFile = ca.writeCertificate(tmp.resolve("ca.pem"));
    Path tokens = Files.writeString(tmp.resolve("tokens"), TOKEN + "\n");
    List<String> command =
        new ArrayList<>(dev.tenbin.eval.shard.ChildJvm.command(TenbinCli.class.getName()));
    command.addAll(
        List.of(
            "serve",
            "index",
            "--port",
            "0",
            "--data-dir",
            tmp.resolve("data").toString(),
            "--tls-cert",
            server.writeCertificate(tmp.resolve("index.pem")).toString(),
            "--tls-key",
            server.writeKey(tmp.resolve("index.key")).toString(),
            "--auth-token-file",
            tokens.toString()));
    Path log = tmp.resolve("index.log");
    Process process =
        new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    try {
      int port = awaitPort(process, log);
      ClientSecurity trusting = ClientSecurity.trusting(caFile);
      ManagedChannel withToken =
          ClientChannels.open("localhost", port, trusting.withTokenFile(tokens), 1 << 20);
      ManagedChannel withoutToken = ClientChannels.open("localhost", port, trusting, 1 << 20);
      try {
        assertThat(
                IndexServiceGrpc.newBlockingStub(withToken)
                    .withDeadlineAfter(30, TimeUnit.SECONDS)
                    .listCollections(ListCollectionsRequest.getDefaultInstance())
                    .getCollectionsList())
            .isEmpty();
        Assertions.assertThatThrownBy(
                () ->
                    IndexServiceGrpc.newBlockingStub(withoutToken)
                        .withDeadlineAfter(30, TimeUnit.SECONDS)
                        .listCollections(ListCollectionsRequest.getDefaultInstance()))
            .isInstanceOfSatisfying(
                StatusRuntimeException.class,
                e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAUTHENTICATED));
        assertThat(
                HealthGrpc.newBlockingStub(withoutToken)
                    .withDeadlineAfter(30, TimeUnit.SECONDS)
                    .check(HealthCheckRequest.getDefaultInstance())
                    .getStatus())
            .isEqualTo(HealthCheckResponse.ServingStatus.SERVING);
      } finally {
        withToken.shutdownNow();
        withoutToken.shutdownNow();
      }
    } finally {
      process.destroy();
      assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();
    }
    assertThat(Files.readString(log)).doesNotContain(TOKEN);
  }

  private static int awaitPort(Process process, Path log) throws Exception {
    Pattern listening = Pattern.compile("index-service listening on [^:]+:(\\d+)");
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
    while (System.nanoTime() < deadline) {
      Matcher matcher = listening.matcher(Files.readString(log));
      if (matcher.find()) {
        return Integer.parseInt(matcher.group(1));
      }
      if (!process.isAlive()) {
        throw new AssertionError("tenbin serve index ended: " + Files.readString(log));
      }
      Thread.sleep(100);
    }
    throw new AssertionError("tenbin serve index did not start: " + Files.readString(log));
  }
}
