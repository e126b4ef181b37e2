package dev.tenbin.encoder.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tenbin.encoder.batching.BatchingLimits;
import dev.tenbin.encoder.config.EncoderServiceConfig;
import dev.tenbin.encoder.server.EncoderServer;
import dev.tenbin.model.ModelPolicy;
import dev.tenbin.proto.encoder.v1.EncodeDenseRequest;
import dev.tenbin.proto.encoder.v1.EncodeDenseResponse;
import dev.tenbin.proto.encoder.v1.EncoderServiceGrpc;
import dev.tenbin.proto.encoder.v1.InputRole;
import dev.tenbin.rpc.ClientChannels;
import dev.tenbin.rpc.ClientSecurity;
import dev.tenbin.rpc.ServerSecurity;
import dev.tenbin.rpc.ServerSettings;
import dev.tenbin.rpc.ServingLimits;
import dev.tenbin.testing.models.TinyModels;
import dev.tenbin.testing.rpc.TestHttp;
import io.grpc.ManagedChannel;
import java.io.UncheckedIOException;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code POST /v1/embeddings} and {@code GET /health} of a real encoder server on loopback, through
 * {@link java.net.http.HttpClient}, compared with the same server's gRPC {@code EncodeDense}.
 */
class EmbeddingsHttpTest {
  private static final String TOKEN = "0123456789abcdef0123456789abcdef";
  private static final String MODEL = "tiny-dense";

  @TempDir Path tmp;
  private EncoderServer.Embedded server;
  private ManagedChannel channel;
  private TestHttp http;

  /** Starts a network server with an HTTP endpoint; {@code adjust} changes the config first. */
  private void start(UnaryOperator<EncoderServiceConfig> adjust) throws Exception {
    TinyModels.dense(tmp.resolve("models"), MODEL, false);
    TinyModels.sparse(tmp.resolve("models"), "tiny-sparse");
    EncoderServiceConfig config =
        adjust.apply(
            EncoderServiceConfig.embedded(tmp.resolve("models"), tmp.resolve("cache"))
                .withServer(new ServerSettings("127.0.0.1", 0, 0, 1 << 20, Duration.ofSeconds(10)))
                .withHttpPort(0));
    server = EncoderServer.start(config);
    channel =
        ClientChannels.open("127.0.0.1", server.host().port(), ClientSecurity.plaintext(), 1 << 24);
    http = TestHttp.plaintext(server.host().httpPort());
  }

  @AfterEach
  void stop() {
    if (channel != null) {
      channel.shutdownNow();
    }
    if (server != null) {
      server.close();
    }
  }

  private EncodeDenseResponse grpc(List<String> texts, InputRole role, int dimensions) {
    return EncoderServiceGrpc.newBlockingStub(channel)
        .withDeadlineAfter(60, TimeUnit.SECONDS)
        .encodeDense(
            EncodeDenseRequest.newBuilder()
                .setModelId(MODEL)
                .addAllTexts(texts)
                .setRole(role)
                .setDimensions(dimensions)
                .build());
  }

  private static float[] floats(List<Float> values) {
    float[] out = new float[values.size()];
    for (int i = 0; i < out.length; i++) {
      out[i] = values.get(i);
    }
    return out;
  }

  /** The vectors of an HTTP answer, floats read exactly or base64 decoded. */
  static List<float[]> vectors(HttpResponse<String> response) {
    assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
    JsonNode body = TestHttp.json(response);
    assertThat(body.get("object").asText()).isEqualTo("list");
    List<float[]> vectors = new ArrayList<>();
    for (JsonNode item : body.get("data")) {
      assertThat(item.get("object").asText()).isEqualTo("embedding");
      assertThat(item.get("index").asInt()).isEqualTo(vectors.size());
      JsonNode embedding = item.get("embedding");
      if (embedding.isTextual()) {
        ByteBuffer bytes =
            ByteBuffer.wrap(Base64.getDecoder().decode(embedding.asText()))
                .order(ByteOrder.LITTLE_ENDIAN);
        float[] vector = new float[bytes.remaining() / 4];
        bytes.asFloatBuffer().get(vector);
        vectors.add(vector);
      } else {
        float[] vector = new float[embedding.size()];
        for (int i = 0; i < vector.length; i++) {
          vector[i] = embedding.get(i).decimalValue().floatValue();
        }
        vectors.add(vector);
      }
    }
    return vectors;
  }

  private static void assertBitForBit(List<float[]> http, EncodeDenseResponse grpc) {
    assertThat(http).hasSize(grpc.getVectorsCount());
    for (int i = 0; i < http.size(); i++) {
      float[] expected = floats(grpc.getVectors(i).getValuesList());
      assertThat(http.get(i)).hasSize(expected.length);
      for (int d = 0; d < expected.length; d++) {
        assertThat(Float.floatToRawIntBits(http.get(i)[d]))
            .as("vector %d dimension %d", i, d)
            .isEqualTo(Float.floatToRawIntBits(expected[d]));
      }
    }
  }

  private HttpResponse<String> embed(String json) {
    return http.post(EmbeddingsHttpApi.PATH, json);
  }

  private static JsonNode error(HttpResponse<String> response) {
    return TestHttp.json(response).get("error");
  }

  @Test
  void floatAndBase64VectorsEqualGrpcsBitForBitWithUsageAndModel() throws Exception {
    start(c -> c);
    List<String> texts = List.of("apple banana", "cherry date fig grape", "elder");
    EncodeDenseResponse expected = grpc(texts, InputRole.INPUT_ROLE_DOCUMENT, 0);

    HttpResponse<String> floats =
        embed(
            "{\"model\":\"tiny-dense\",\"input\":[\"apple banana\",\"cherry date fig grape\","
                + "\"elder\"]}");
    assertBitForBit(vectors(floats), expected);
    JsonNode body = TestHttp.json(floats);
    assertThat(body.get("model").asText()).isEqualTo(MODEL);
    assertThat(body.get("usage").get("prompt_tokens").asLong())
        .isEqualTo(expected.getMetadata().getInputTokens())
        .isPositive();
    assertThat(body.get("usage").get("total_tokens").asLong())
        .isEqualTo(expected.getMetadata().getInputTokens());

    HttpResponse<String> base64 =
        embed(
            "{\"model\":\"tiny-dense\",\"encoding_format\":\"base64\",\"input\":[\"apple banana\","
                + "\"cherry date fig grape\",\"elder\"]}");
    assertThat(TestHttp.json(base64).get("data").get(0).get("embedding").isTextual()).isTrue();
    assertBitForBit(vectors(base64), expected);
  }

  @Test
  void aStringInputIsOneEmbeddingAndDimensionsTruncateAsOnGrpc() throws Exception {
    start(c -> c);
    assertBitForBit(
        vectors(embed("{\"model\":\"tiny-dense\",\"input\":\"grape fig\"}")),
        grpc(List.of("grape fig"), InputRole.INPUT_ROLE_DOCUMENT, 0));

    List<float[]> four =
        vectors(embed("{\"model\":\"tiny-dense\",\"input\":\"grape fig\",\"dimensions\":4}"));
    assertThat(four.getFirst()).hasSize(4);
    assertBitForBit(four, grpc(List.of("grape fig"), InputRole.INPUT_ROLE_DOCUMENT, 4));

    int width =
        vectors(embed("{\"model\":\"tiny-dense\",\"input\":\"grape fig\"}")).getFirst().length;
    HttpResponse<String> wider =
        embed(
            "{\"model\":\"tiny-dense\",\"input\":\"grape fig\",\"dimensions\":"
                + (width + 1)
                + "}");
    assertThat(wider.statusCode()).isEqualTo(400);
    assertThat(error(wider).get("param").asText()).isEqualTo("dimensions");
    assertThat(error(wider).get("message").asText())
        .contains("a truncation must be between 1 and " + width);
  }

  @Test
  void inputTypeQueryUsesTheQueryPromptAndDocumentIsTheDefault() throws Exception {
    start(c -> c);
    List<String> texts = List.of("apple cherry");
    EncodeDenseResponse query = grpc(texts, InputRole.INPUT_ROLE_QUERY, 0);
    EncodeDenseResponse document = grpc(texts, InputRole.INPUT_ROLE_DOCUMENT, 0);
    assertThat(query.getVectors(0).getValuesList())
        .as("the tiny model's query prompt changes the vector")
        .isNotEqualTo(document.getVectors(0).getValuesList());

    assertBitForBit(
        vectors(
            embed(
                "{\"model\":\"tiny-dense\",\"input\":[\"apple cherry\"],\"input_type\":\"query\"}")),
        query);
    assertBitForBit(
        vectors(
            embed(
                "{\"model\":\"tiny-dense\",\"input\":[\"apple cherry\"],"
                    + "\"input_type\":\"document\"}")),
        document);
    assertBitForBit(
        vectors(embed("{\"model\":\"tiny-dense\",\"input\":[\"apple cherry\"],\"user\":\"u1\"}")),
        document); // Cohere's and TEI's spellings of the same two roles.
    assertBitForBit(
        vectors(
            embed(
                "{\"model\":\"tiny-dense\",\"input\":[\"apple cherry\"],"
                    + "\"input_type\":\"search_query\"}")),
        query);
    assertBitForBit(
        vectors(
            embed(
                "{\"model\":\"tiny-dense\",\"input\":[\"apple cherry\"],\"prompt_name\":\"query\"}")),
        query);
    assertBitForBit(
        vectors(
            embed(
                "{\"model\":\"tiny-dense\",\"input\":[\"apple cherry\"],"
                    + "\"input_type\":\"search_document\"}")),
        document);
  }

  @Test
  void modelsListsTheDenseModelsTheEmbeddingsRouteTakes() throws Exception {
    start(c -> c);
    HttpResponse<String> response = http.get(EmbeddingsHttpApi.MODELS_PATH);
    assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
    JsonNode body = TestHttp.json(response);
    assertThat(body.get("object").asText()).isEqualTo("list");
    List<String> ids = new java.util.ArrayList<>();
    body.get("data").forEach(model -> ids.add(model.get("id").asText()));
    assertThat(ids).contains(MODEL).doesNotContain("tiny-sparse");
    for (JsonNode model : body.get("data")) {
      assertThat(model.get("object").asText()).isEqualTo("model");
      assertThat(model.get("owned_by").asText()).isEqualTo("tenbin");
    }
    JsonNode tiny =
        java.util.stream.StreamSupport.stream(body.get("data").spliterator(), false)
            .filter(model -> model.get("id").asText().equals(MODEL))
            .findFirst()
            .orElseThrow();
    assertThat(tiny.get("query_prompt").asBoolean()).isTrue();
    assertThat(http.post(EmbeddingsHttpApi.MODELS_PATH, "{}").statusCode()).isEqualTo(405);
  }

  @Test
  void badRequestsAre400NamingTheField() throws Exception {
    start(c -> c);
    record Bad(String json, String param) {}
    for (Bad bad :
        List.of(
            new Bad("{\"model\":\"tiny-dense\",", null),
            new Bad("[1,2]", null),
            new Bad("{\"input\":\"apple\"}", "model"),
            new Bad("{\"model\":7,\"input\":\"apple\"}", "model"),
            new Bad("{\"model\":\"tiny-dense\"}", "input"),
            new Bad("{\"model\":\"tiny-dense\",\"input\":42}", "input"),
            new Bad("{\"model\":\"tiny-dense\",\"input\":[\"apple\",[1,2]]}", "input[1]"),
            new Bad("{\"model\":\"tiny-dense\",\"input\":[\"apple\",\"  \"]}", "input[1]"),
            new Bad("{\"model\":\"tiny-dense\",\"input\":[]}", "input"),
            new Bad(
                "{\"model\":\"tiny-dense\",\"input\":\"a\",\"dimensions\":\"4\"}", "dimensions"),
            new Bad(
                "{\"model\":\"tiny-dense\",\"input\":\"a\",\"encoding_format\":\"hex\"}",
                "encoding_format"),
            new Bad(
                "{\"model\":\"tiny-dense\",\"input\":\"a\",\"input_type\":\"passage\"}",
                "input_type"),
            new Bad(
                "{\"model\":\"tiny-dense\",\"input\":\"a\",\"prompt_name\":\"passage\"}",
                "prompt_name"),
            new Bad(
                "{\"model\":\"tiny-dense\",\"input\":\"a\",\"input_type\":\"query\","
                    + "\"prompt_name\":\"query\"}",
                "prompt_name"),
            new Bad("{\"model\":\"tiny-sparse\",\"input\":\"apple\"}", "model"))) {
      HttpResponse<String> response = embed(bad.json());
      assertThat(response.statusCode()).as(bad.json()).isEqualTo(400);
      JsonNode error = error(response);
      assertThat(error.get("type").asText()).isEqualTo("invalid_request_error");
      assertThat(error.get("message").asText()).isNotBlank();
      if (bad.param() == null) {
        assertThat(error.get("param").isNull()).as(bad.json()).isTrue();
      } else {
        assertThat(error.get("param").asText()).as(bad.json()).isEqualTo(bad.param());
      }
      assertThat(response.body()).doesNotContain("Exception", "at dev.");
    }
  }

  @Test
  void anUnknownModelIs404AndAModelThePolicyForbidsIs403() throws Exception {
    start(c -> c.withModels(ModelPolicy.of(List.of("local:*"), 0)));
    HttpResponse<String> unknown = embed("{\"model\":\"no-such-model\",\"input\":\"apple\"}");
    assertThat(unknown.statusCode()).as(unknown.body()).isEqualTo(404);
    assertThat(error(unknown).get("param").asText()).isEqualTo("model");

    HttpResponse<String> forbidden = embed("{\"model\":\"bge-small-en-v1.5\",\"input\":\"apple\"}");
    assertThat(forbidden.statusCode()).as(forbidden.body()).isEqualTo(403);
    assertThat(error(forbidden).get("type").asText()).isEqualTo("permission_error");
    assertThat(error(forbidden).get("param").asText()).isEqualTo("model");
  }

  @Test
  void requestsOverTheSizeLimitsAre413() throws Exception {
    start(
        c ->
            c.withServer(new ServerSettings("127.0.0.1", 0, -1, 1 << 14, Duration.ofSeconds(10)))
                .withRequestLimits(3, 50)
                .withMaxRequestChars(60));
    HttpResponse<String> tooMany =
        embed("{\"model\":\"tiny-dense\",\"input\":[\"apple\",\"fig\",\"date\",\"grape\"]}");
    assertThat(tooMany.statusCode()).isEqualTo(413);
    assertThat(error(tooMany).get("type").asText()).isEqualTo("request_too_large");
    assertThat(error(tooMany).get("param").asText()).isEqualTo("input");

    HttpResponse<String> tooLong =
        embed("{\"model\":\"tiny-dense\",\"input\":[\"apple\",\"" + "a".repeat(51) + "\"]}");
    assertThat(tooLong.statusCode()).isEqualTo(413);
    assertThat(error(tooLong).get("param").asText()).isEqualTo("input[1]");

    HttpResponse<String> tooMuch =
        embed(
            "{\"model\":\"tiny-dense\",\"input\":[\""
                + "a".repeat(40)
                + "\",\""
                + "b".repeat(40)
                + "\"]}");
    assertThat(tooMuch.statusCode()).isEqualTo(413);
    assertThat(error(tooMuch).get("param").asText()).isEqualTo("input");

    HttpResponse<String> deep =
        embed("{\"model\":\"tiny-dense\",\"input\":" + "[".repeat(2000) + "]".repeat(2000) + "}");
    assertThat(deep.statusCode()).as(deep.body()).isEqualTo(413);
    assertThat(error(deep).get("message").asText()).contains("nesting");

    HttpResponse<String> body =
        embed("{\"model\":\"tiny-dense\",\"input\":\"" + "a".repeat(1 << 15) + "\"}");
    assertThat(body.statusCode()).isEqualTo(413);
    assertThat(error(body).get("message").asText()).contains("--max-message-bytes");
  }

  @Test
  void aCallBeyondTheAdmissionLimitIs429WithRetryAfterAndHealthStillAnswers() throws Exception {
    // One call at a time, and an input waits up to 5 s for company: the first call is caught.
    start(
        c ->
            c.withServer(c.server().withLimits(ServingLimits.of(1, 1, 0)))
                .withBatching(new BatchingLimits(1_000_000, 256, 100, Duration.ofSeconds(5))));
    CompletableFuture<HttpResponse<String>> first =
        CompletableFuture.supplyAsync(() -> embed("{\"model\":\"tiny-dense\",\"input\":\"fig\"}"));
    awaitActiveCalls(1);
    HttpResponse<String> refused = embed("{\"model\":\"tiny-dense\",\"input\":\"date\"}");
    assertThat(refused.statusCode()).isEqualTo(429);
    assertThat(refused.headers().firstValue("Retry-After")).contains("1");
    assertThat(error(refused).get("type").asText()).isEqualTo("rate_limit_error");
    assertThat(http.get("/health").statusCode()).isEqualTo(200);
    assertThat(first.get(30, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
  }

  private void awaitActiveCalls(int calls) throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
    while (server.host().registry().get("tenbin.rpc.calls.active").gauge().value() != calls) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("never " + calls + " active calls");
      }
      Thread.sleep(5);
    }
  }

  @Test
  void bearerTokensGuardEmbeddingsButNotHealth() throws Exception {
    Path tokens = Files.writeString(tmp.resolve("tokens"), TOKEN + "\n");
    start(
        c ->
            c.withServer(
                c.server().withSecurity(ServerSecurity.plaintext().withAuthTokenFile(tokens))));
    String json = "{\"model\":\"tiny-dense\",\"input\":\"fig\"}";
    HttpResponse<String> missing = http.post(EmbeddingsHttpApi.PATH, json);
    assertThat(missing.statusCode()).isEqualTo(401);
    assertThat(error(missing).get("type").asText()).isEqualTo("authentication_error");
    assertThat(http.post(EmbeddingsHttpApi.PATH, json, "wrong-token-wrong-token").statusCode())
        .isEqualTo(401);
    assertThat(http.post(EmbeddingsHttpApi.PATH, json, TOKEN).statusCode()).isEqualTo(200);
    assertThat(http.get("/health").statusCode()).isEqualTo(200);
  }

  @Test
  void concurrentRequestsEachGetTheirOwnVectors() throws Exception {
    start(c -> c);
    List<String> words = TinyModels.WORDS;
    List<String> texts = new ArrayList<>();
    for (int i = 0; i < 24; i++) {
      texts.add(words.get(i % words.size()) + " " + words.get((i * 3 + 1) % words.size()));
    }
    EncodeDenseResponse expected = grpc(texts, InputRole.INPUT_ROLE_DOCUMENT, 0);
    ExecutorService clients = Executors.newFixedThreadPool(8);
    try {
      List<CompletableFuture<List<float[]>>> answers = new ArrayList<>();
      for (String text : texts) {
        answers.add(
            CompletableFuture.supplyAsync(
                () -> vectors(embed("{\"model\":\"tiny-dense\",\"input\":\"" + text + "\"}")),
                clients));
      }
      for (int i = 0; i < texts.size(); i++) {
        assertBitForBit(
            answers.get(i).get(60, TimeUnit.SECONDS),
            EncodeDenseResponse.newBuilder().addVectors(expected.getVectors(i)).build());
      }
    } finally {
      clients.shutdownNow();
    }
  }

  @Test
  void closingTheServerStopsTheHttpEndpointWithTheGrpcSide() throws Exception {
    start(c -> c);
    assertThat(http.get("/health").statusCode()).isEqualTo(200);
    assertThat(TestHttp.json(http.get("/health")).get("status").asText()).isEqualTo("serving");
    server.close();
    assertThatThrownBy(() -> http.get("/health")).isInstanceOf(UncheckedIOException.class);
    assertThatThrownBy(() -> server.core().acquire(MODEL))
        .isInstanceOf(dev.tenbin.core.UnavailableException.class);
  }
}
