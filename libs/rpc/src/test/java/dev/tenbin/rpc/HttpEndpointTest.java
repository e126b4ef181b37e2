package dev.tenbin.rpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.google.protobuf.Empty;
import com.google.protobuf.StringValue;
import dev.tenbin.core.InvalidInputException;
import dev.tenbin.core.NotFoundException;
import dev.tenbin.core.OverloadedException;
import dev.tenbin.core.PermissionDeniedException;
import dev.tenbin.rpc.testing.TestService;
import dev.tenbin.testing.rpc.TestCertificates;
import dev.tenbin.testing.rpc.TestHttp;
import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.stub.ClientCalls;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The HTTP endpoint beside a gRPC host, through a real {@link java.net.http.HttpClient} on
 * loopback: the host's tokens, admission limit, TLS and size limit apply to it, failures are JSON
 * with their HTTP status, and it drains with the host.
 */
class HttpEndpointTest {
  private static final String TOKEN = "0123456789abcdef0123456789abcdef";

  @TempDir Path tmp;

  private final TestService grpc = new TestService();
  private final CountDownLatch release = new CountDownLatch(1);
  private final AtomicInteger blocked = new AtomicInteger();
  private GrpcServerHost host;

  @AfterEach
  void stop() {
    release.countDown();
    grpc.release();
    if (host != null) {
      host.close();
    }
  }

  /** Body {@code ok}, {@code bad}, {@code missing}, {@code denied}, {@code busy}, ... */
  private Object handle(byte[] body) {
    String value = new String(body, StandardCharsets.UTF_8);
    return switch (value) {
      case "bad" -> throw new InvalidInputException("texts[1]", "text 1 is empty");
      case "large" -> throw InvalidInputException.tooLarge("texts", "at most 3 texts");
      case "missing" -> throw new NotFoundException("model_id", "no model 'x'");
      case "denied" -> throw new PermissionDeniedException("model_id", "model 'x' not allowed");
      case "busy" -> throw new OverloadedException("queue full", Duration.ofMillis(2500));
      case "boom" -> throw new IllegalStateException("secret detail /etc/shadow");
      case "block" -> {
        blocked.incrementAndGet();
        try {
          release.await(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
        yield Map.of("released", true);
      }
      default -> Map.of("echo", value, "thread", Thread.currentThread().getName());
    };
  }

  private TestHttp start(ServerSettings settings) {
    host =
        GrpcServerHost.start(settings, List.of(grpc))
            .serveHttp(
                0,
                List.of(
                    new HttpEndpoint.Route(
                        "POST",
                        "/v1/echo",
                        this::handle,
                        field -> field.replace("texts", "input"))));
    return TestHttp.plaintext(host.httpPort());
  }

  private static ServerSettings settings() {
    return new ServerSettings("127.0.0.1", 0, 0, 1 << 16, Duration.ofSeconds(10));
  }

  private static JsonNode error(HttpResponse<String> response) {
    return TestHttp.json(response).get("error");
  }

  @Test
  void aRouteAnswersJsonOnAHandlerThreadAndHealthSaysServing() {
    TestHttp http = start(settings());
    HttpResponse<String> echo = http.post("/v1/echo", "hello");
    assertThat(echo.statusCode()).isEqualTo(200);
    assertThat(echo.headers().firstValue("Content-Type")).contains("application/json");
    assertThat(TestHttp.json(echo).get("echo").asText()).isEqualTo("hello");
    assertThat(TestHttp.json(echo).get("thread").asText()).startsWith("grpc-handler-");

    HttpResponse<String> health = http.get("/health");
    assertThat(health.statusCode()).isEqualTo(200);
    assertThat(TestHttp.json(health).get("status").asText()).isEqualTo("serving");
  }

  @Test
  void typedFailuresBecomeJsonErrorsWithTheirStatusTypeAndTheRequestsFieldName() {
    TestHttp http = start(settings());
    record Expected(String body, int status, String type, String param) {}
    for (Expected expected :
        List.of(
            new Expected("bad", 400, "invalid_request_error", "input[1]"),
            new Expected("large", 413, "request_too_large", "input"),
            new Expected("missing", 404, "not_found_error", "model_id"),
            new Expected("denied", 403, "permission_error", "model_id"),
            new Expected("busy", 429, "rate_limit_error", null))) {
      HttpResponse<String> response = http.post("/v1/echo", expected.body());
      assertThat(response.statusCode()).as(expected.body()).isEqualTo(expected.status());
      JsonNode error = error(response);
      assertThat(error.get("type").asText()).isEqualTo(expected.type());
      assertThat(error.get("message").asText()).isNotBlank();
      if (expected.param() == null) {
        assertThat(error.get("param").isNull()).isTrue();
      } else {
        assertThat(error.get("param").asText()).isEqualTo(expected.param());
      }
    }
    assertThat(http.post("/v1/echo", "busy").headers().firstValue("Retry-After")).contains("3");
  }

  @Test
  void anUnexpectedFailureIs500WithAnErrorIdAndNothingElse() {
    TestHttp http = start(settings());
    HttpResponse<String> response = http.post("/v1/echo", "boom");
    assertThat(response.statusCode()).isEqualTo(500);
    assertThat(error(response).get("message").asText()).startsWith(StatusMapper.INTERNAL_PREFIX);
    assertThat(response.body()).doesNotContain("secret", "IllegalStateException", "at dev.");
  }

  @Test
  void unknownPathsWrongMethodsAndBodiesOverTheMessageLimitAreRefused() {
    TestHttp http = start(settings());
    assertThat(http.post("/v1/nothing", "x").statusCode()).isEqualTo(404);
    HttpResponse<String> get = http.get("/v1/echo");
    assertThat(get.statusCode()).isEqualTo(405);
    assertThat(get.headers().firstValue("Allow")).contains("POST");

    HttpResponse<String> large = http.post("/v1/echo", "x".repeat((1 << 16) + 1));
    assertThat(large.statusCode()).isEqualTo(413);
    assertThat(error(large).get("message").asText()).contains("--max-message-bytes");
    assertThat(http.post("/v1/echo", "x".repeat(1 << 16)).statusCode()).isEqualTo(200);
  }

  @Test
  void bearerTokensAreCheckedAsOnTheGrpcSideAndHealthStaysOpen() throws Exception {
    Path tokens = Files.writeString(tmp.resolve("tokens"), TOKEN + "\n");
    TestHttp http =
        start(settings().withSecurity(ServerSecurity.plaintext().withAuthTokenFile(tokens)));

    HttpResponse<String> missing = http.post("/v1/echo", "hello");
    assertThat(missing.statusCode()).isEqualTo(401);
    assertThat(missing.headers().firstValue("WWW-Authenticate")).contains("Bearer");
    assertThat(error(missing).get("type").asText()).isEqualTo("authentication_error");
    assertThat(error(missing).get("message").asText()).contains("missing bearer token");

    HttpResponse<String> wrong = http.post("/v1/echo", "hello", "not-the-token-at-all");
    assertThat(wrong.statusCode()).isEqualTo(401);
    assertThat(error(wrong).get("message").asText()).isEqualTo("invalid bearer token");

    assertThat(http.post("/v1/echo", "hello", TOKEN).statusCode()).isEqualTo(200);
    assertThat(http.get("/health").statusCode()).isEqualTo(200);
    assertThat(GrpcServerHostTest.scrape(host))
        .contains("tenbin_rpc_calls_unauthenticated_total 2.0")
        .contains("tenbin_http_requests_total{path=\"/v1/echo\",status=\"401\"} 2.0")
        .contains("tenbin_http_requests_total{path=\"/v1/echo\",status=\"200\"} 1.0")
        .contains("tenbin_http_requests_total{path=\"/health\",status=\"200\"} 1.0");
  }

  @Test
  void httpAndGrpcCallsShareOneAdmissionLimit() throws Exception {
    // One handler thread, one call admitted: a blocked gRPC call leaves no permit for HTTP.
    TestHttp http = start(settings().withLimits(ServingLimits.of(1, 1, 0)));
    ManagedChannel channel =
        ClientChannels.open("127.0.0.1", host.port(), ClientSecurity.plaintext(), 1 << 20);
    try {
      Future<Empty> grpcCall =
          ClientCalls.futureUnaryCall(
              channel.newCall(
                  TestService.CHECK, CallOptions.DEFAULT.withDeadlineAfter(60, TimeUnit.SECONDS)),
              StringValue.of("block"));
      TransportSecurityTest.awaitSuccess(() -> assertThat(grpc.blocked()).isEqualTo(1));

      HttpResponse<String> refused = http.post("/v1/echo", "hello");
      assertThat(refused.statusCode()).isEqualTo(429);
      assertThat(refused.headers().firstValue("Retry-After")).contains("1");
      assertThat(error(refused).get("message").asText()).contains("--max-concurrent-calls");
      assertThat(http.get("/health").statusCode()).as("health is never refused").isEqualTo(200);

      grpc.release();
      grpcCall.get(20, TimeUnit.SECONDS);
      TransportSecurityTest.awaitSuccess(
          () ->
              assertThat(host.registry().get("tenbin.rpc.calls.active").gauge().value()).isZero());
      assertThat(http.post("/v1/echo", "hello").statusCode()).isEqualTo(200);

      // And the other way round: a blocked HTTP call leaves no permit for gRPC.
      CompletableFuture<HttpResponse<String>> httpCall =
          CompletableFuture.supplyAsync(() -> http.post("/v1/echo", "block"));
      TransportSecurityTest.awaitSuccess(() -> assertThat(blocked.get()).isEqualTo(1));
      assertThatThrownBy(() -> TestService.check(channel, "ok"))
          .hasMessageContaining("RESOURCE_EXHAUSTED");
      release.countDown();
      assertThat(httpCall.get(20, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
      assertThat(GrpcServerHostTest.scrape(host)).contains("tenbin_rpc_calls_refused_total 2.0");
    } finally {
      channel.shutdownNow();
    }
  }

  @Test
  void closingAnswers503ToHealthAndNewCallsWhileCallsInFlightFinish() throws Exception {
    TestHttp http = start(settings());
    CompletableFuture<HttpResponse<String>> inFlight =
        CompletableFuture.supplyAsync(() -> http.post("/v1/echo", "block"));
    TransportSecurityTest.awaitSuccess(() -> assertThat(blocked.get()).isEqualTo(1));

    CompletableFuture<Void> closing = CompletableFuture.runAsync(host::close);
    TransportSecurityTest.awaitSuccess(
        () -> assertThat(http.get("/health").statusCode()).isEqualTo(503));
    assertThat(TestHttp.json(http.get("/health")).get("status").asText()).isEqualTo("draining");
    HttpResponse<String> late = http.post("/v1/echo", "hello");
    assertThat(late.statusCode()).isEqualTo(503);
    assertThat(late.headers().firstValue("Retry-After")).isPresent();
    assertThat(closing).isNotDone();

    release.countDown();
    assertThat(inFlight.get(20, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
    closing.get(20, TimeUnit.SECONDS);
    assertThatThrownBy(() -> http.get("/health")).isInstanceOf(UncheckedIOException.class);
  }

  @Test
  void httpsUsesTheGrpcSidesCertificateAndMutualTlsWantsAClientCertificate() {
    TestCertificates.Authority serverCa = TestCertificates.authority("server-ca");
    TestCertificates.Authority clientCa = TestCertificates.authority("client-ca");
    TestCertificates.Issued server = serverCa.issue("localhost");
    ServerSecurity tls =
        ServerSecurity.plaintext()
            .withTls(
                server.writeCertificate(tmp.resolve("server.pem")),
                server.writeKey(tmp.resolve("server.key")),
                clientCa.writeCertificate(tmp.resolve("client-ca.pem")));
    start(settings().withSecurity(tls));
    int port = host.httpPort();

    TestHttp withCertificate = TestHttp.https(port, serverCa, clientCa.issue("client"));
    assertThat(withCertificate.post("/v1/echo", "hello").statusCode()).isEqualTo(200);
    assertThat(withCertificate.get("/health").statusCode()).isEqualTo(200);

    TestHttp noCertificate = TestHttp.https(port, serverCa, null);
    assertThatThrownBy(() -> noCertificate.post("/v1/echo", "hello"))
        .isInstanceOf(UncheckedIOException.class);
    TestHttp plaintext = TestHttp.plaintext(port);
    assertThatThrownBy(
            () ->
                plaintext.send(
                    HttpRequest.newBuilder(URI.create(plaintext.base() + "/health"))
                        .timeout(Duration.ofSeconds(10))
                        .build()))
        .isInstanceOf(RuntimeException.class);
  }

  @Test
  void anInProcessHostHasNoHttpEndpoint() {
    try (GrpcServerHost inProcess =
        GrpcServerHost.startInProcess(
            "http-test-" + System.nanoTime(),
            new io.micrometer.core.instrument.simple.SimpleMeterRegistry(),
            List.of(new TestService()))) {
      assertThatThrownBy(() -> inProcess.serveHttp(0, List.of()))
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("in-process");
      assertThat(inProcess.httpPort()).isEqualTo(-1);
    }
  }
}
