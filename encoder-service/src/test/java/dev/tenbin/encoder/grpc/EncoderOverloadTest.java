package dev.tenbin.encoder.grpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tenbin.encoder.batching.BatchingLimits;
import dev.tenbin.encoder.config.EncoderServiceConfig;
import dev.tenbin.encoder.server.EncoderServer;
import dev.tenbin.proto.encoder.v1.EncodeDenseRequest;
import dev.tenbin.proto.encoder.v1.EncodeDenseResponse;
import dev.tenbin.proto.encoder.v1.EncodeLightQueryRequest;
import dev.tenbin.proto.encoder.v1.EncoderServiceGrpc;
import dev.tenbin.proto.encoder.v1.GetModelInfoRequest;
import dev.tenbin.proto.encoder.v1.InputRole;
import dev.tenbin.proto.encoder.v1.LightQueryKind;
import dev.tenbin.proto.encoder.v1.TokenizeRequest;
import dev.tenbin.rpc.StatusMapper;
import dev.tenbin.testing.models.TinyModels;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Collections;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Bad input and overload over gRPC, with a small queue (3 inputs) whose first input waits up to 1.5
 * s for company, so that requests can be caught waiting.
 */
class EncoderOverloadTest {
  @TempDir Path tmp;
  EncoderServer.Embedded server;
  SimpleMeterRegistry registry;
  ManagedChannel channel;
  EncoderServiceGrpc.EncoderServiceBlockingStub stub;

  @BeforeEach
  void start() throws Exception {
    TinyModels.dense(tmp.resolve("models"), "tiny-dense", false);
    String name = "encoder-overload-" + UUID.randomUUID();
    EncoderServiceConfig config =
        EncoderServiceConfig.embedded(tmp.resolve("models"), tmp.resolve("cache"))
            .withBatching(new BatchingLimits(1_000_000, 256, 3, Duration.ofMillis(1500)))
            .withRequestLimits(3, 50);
    registry = new SimpleMeterRegistry();
    server = EncoderServer.startInProcess(name, config, registry);
    channel = InProcessChannelBuilder.forName(name).build();
    stub = EncoderServiceGrpc.newBlockingStub(channel);
    // Load the model and its tokenizer now, so that the tests' timings are spent in the queue.
    stub.getModelInfo(GetModelInfoRequest.newBuilder().setModelId("tiny-dense").build());
    stub.tokenize(
        TokenizeRequest.newBuilder()
            .setModelId("tiny-dense")
            .addTexts("apple")
            .setRole(InputRole.INPUT_ROLE_DOCUMENT)
            .build());
  }

  @AfterEach
  void stop() {
    channel.shutdownNow();
    server.close();
  }

  private static EncodeDenseRequest request(String... texts) {
    return EncodeDenseRequest.newBuilder()
        .setModelId("tiny-dense")
        .addAllTexts(java.util.List.of(texts))
        .setRole(InputRole.INPUT_ROLE_DOCUMENT)
        .build();
  }

  private static void assertStatus(Runnable call, Status.Code code, String field) {
    assertThatThrownBy(call::run)
        .isInstanceOfSatisfying(
            StatusRuntimeException.class,
            e -> {
              assertThat(e.getStatus().getCode()).isEqualTo(code);
              if (field != null) {
                assertThat(StatusMapper.violatedField(e)).isEqualTo(field);
              }
            });
  }

  /** Waits (up to 20 s) until the model's gauge {@code name} reads {@code value}. */
  private void awaitGauge(String name, double value) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (registry.get(name).gauge().value() != value) {
      assertThat(System.nanoTime()).as("%s reaching %s", name, value).isLessThan(deadline);
      Thread.sleep(5);
    }
  }

  @Test
  void tooManyInputsOrTooLongATextIsInvalidArgumentNamingTheField() {
    assertStatus(
        () -> stub.encodeDense(request("apple", "banana", "cherry", "date")),
        Status.Code.INVALID_ARGUMENT,
        "texts");
    assertStatus(
        () -> stub.encodeDense(request("apple", "x".repeat(51))),
        Status.Code.INVALID_ARGUMENT,
        "texts[1]");
    assertStatus(() -> stub.encodeDense(request()), Status.Code.INVALID_ARGUMENT, "texts");
    assertStatus(
        () ->
            stub.encodeDense(
                request("apple").toBuilder().setDimensions(TinyModels.HIDDEN + 1).build()),
        Status.Code.INVALID_ARGUMENT,
        "dimensions");
    assertStatus(
        () ->
            stub.encodeLightQuery(
                EncodeLightQueryRequest.newBuilder()
                    .setModelId("tiny-dense")
                    .setKind(LightQueryKind.LIGHT_QUERY_KIND_SPARSE)
                    .build()),
        Status.Code.INVALID_ARGUMENT,
        "queries");
    assertStatus(
        () ->
            stub.encodeLightQuery(
                EncodeLightQueryRequest.newBuilder()
                    .setModelId("tiny-dense")
                    .addAllQueries(Collections.nCopies(4, "apple"))
                    .setKind(LightQueryKind.LIGHT_QUERY_KIND_SPARSE)
                    .build()),
        Status.Code.INVALID_ARGUMENT,
        "queries");
  }

  @Test
  void aFullQueueIsResourceExhaustedRatherThanUnboundedMemory() throws Exception {
    CompletableFuture<EncodeDenseResponse> waiting =
        CompletableFuture.supplyAsync(() -> stub.encodeDense(request("apple", "banana")));
    awaitGauge("tenbin.encoder.queue.inputs", 2); // two inputs wait in the queue for company
    assertStatus(
        () -> stub.encodeDense(request("cherry", "date")), Status.Code.RESOURCE_EXHAUSTED, null);
    assertThat(waiting.get(10, TimeUnit.SECONDS).getVectorsCount()).isEqualTo(2);
  }

  @Test
  void anExpiredCallGivesItsPlaceInTheQueueBack() throws Exception {
    assertStatus(
        () ->
            stub.withDeadlineAfter(300, TimeUnit.MILLISECONDS)
                .encodeDense(request("apple", "banana")),
        Status.Code.DEADLINE_EXCEEDED,
        null);
    awaitGauge("tenbin.encoder.inflight.inputs", 0); // the server notices within 20 ms
    // Had the expired inputs stayed queued, these two would not fit beside them (limit 3).
    assertThat(stub.encodeDense(request("cherry", "date")).getVectorsCount()).isEqualTo(2);
  }

  @Test
  void aFourfoldOverloadIsRefusedAtOnceWhileAdmittedCallsWaitAndTheServiceRecovers()
      throws Exception {
    // Capacity: 3 queued inputs (one request of 3); 4x that arrives at once.
    java.util.List<CompletableFuture<Status.Code>> calls = new java.util.ArrayList<>();
    java.util.concurrent.ExecutorService clients =
        java.util.concurrent.Executors.newFixedThreadPool(4);
    try {
      for (int i = 0; i < 4; i++) {
        calls.add(
            CompletableFuture.supplyAsync(
                () -> {
                  try {
                    stub.encodeDense(request("apple", "banana", "cherry"));
                    return Status.Code.OK;
                  } catch (StatusRuntimeException e) {
                    return e.getStatus().getCode();
                  }
                },
                clients));
      }
      // The first refusal comes while the admitted call still waits in the queue (1.5 s for
      // company).
      Status.Code first =
          CompletableFuture.anyOf(calls.toArray(CompletableFuture[]::new))
              .thenApply(Status.Code.class::cast)
              .get(10, TimeUnit.SECONDS);
      assertThat(first).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
      java.util.List<Status.Code> codes = new java.util.ArrayList<>();
      for (CompletableFuture<Status.Code> call : calls) {
        codes.add(call.get(20, TimeUnit.SECONDS));
      }
      assertThat(codes).containsOnly(Status.Code.OK, Status.Code.RESOURCE_EXHAUSTED);
      assertThat(codes)
          .filteredOn(code -> code == Status.Code.RESOURCE_EXHAUSTED)
          .hasSizeGreaterThanOrEqualTo(2);
      assertThat(codes).contains(Status.Code.OK);
      // Recovered: the queue is empty again and a normal request is served.
      assertThat(stub.encodeDense(request("date", "elder")).getVectorsCount()).isEqualTo(2);
    } finally {
      clients.shutdownNow();
    }
  }
}
