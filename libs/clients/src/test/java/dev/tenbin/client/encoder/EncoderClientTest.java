package dev.tenbin.client.encoder;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tenbin.client.CallPolicy;
import dev.tenbin.client.TestServers;
import dev.tenbin.proto.common.v1.DenseVector;
import dev.tenbin.proto.encoder.v1.BuildLightCacheRequest;
import dev.tenbin.proto.encoder.v1.BuildLightCacheResponse;
import dev.tenbin.proto.encoder.v1.EncodeDenseRequest;
import dev.tenbin.proto.encoder.v1.EncodeDenseResponse;
import dev.tenbin.proto.encoder.v1.EncoderServiceGrpc;
import dev.tenbin.proto.encoder.v1.InputRole;
import dev.tenbin.proto.encoder.v1.LightCache;
import dev.tenbin.proto.encoder.v1.LightCacheDtype;
import dev.tenbin.proto.encoder.v1.ListModelsRequest;
import dev.tenbin.proto.encoder.v1.ListModelsResponse;
import dev.tenbin.proto.encoder.v1.ModelCard;
import dev.tenbin.proto.encoder.v1.StreamEncodeDenseRequest;
import dev.tenbin.proto.encoder.v1.StreamEncodeDenseResponse;
import dev.tenbin.rpc.StatusMapper;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * {@link EncoderClient} against a fake encoder on an in-process server: deadlines, which failures
 * are tried again and how often, and streamed encodes resumed from the first text without a vector.
 */
class EncoderClientTest {
  private static final Duration SHORT = Duration.ofMillis(300);

  /** The vector the fake encoder gives a text: its number, and 1 for a query. */
  private static DenseVector vectorOf(String text, InputRole role) {
    return DenseVector.newBuilder()
        .addValues(Float.parseFloat(text))
        .addValues(role == InputRole.INPUT_ROLE_QUERY ? 1 : 0)
        .build();
  }

  private static List<String> numbers(int count) {
    List<String> texts = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      texts.add(Integer.toString(i));
    }
    return texts;
  }

  /** An encoder whose EncodeDense fails with {@code failures} in turn, then answers. */
  private static final class Flaky extends EncoderServiceGrpc.EncoderServiceImplBase {
    final AtomicInteger calls = new AtomicInteger();
    final List<Supplier<StatusRuntimeException>> failures;

    Flaky(List<Supplier<StatusRuntimeException>> failures) {
      this.failures = failures;
    }

    @Override
    public void encodeDense(
        EncodeDenseRequest request, StreamObserver<EncodeDenseResponse> responses) {
      int call = calls.getAndIncrement();
      if (call < failures.size()) {
        responses.onError(failures.get(call).get());
        return;
      }
      EncodeDenseResponse.Builder response = EncodeDenseResponse.newBuilder();
      for (String text : request.getTextsList()) {
        response.addVectors(vectorOf(text, request.getRole()));
      }
      responses.onNext(response.build());
      responses.onCompleted();
    }
  }

  @Test
  void aServerThatNeverAnswersFailsWithDeadlineExceededAfterTheDeadlineAndIsNotRetried()
      throws Exception {
    AtomicInteger calls = new AtomicInteger();
    CountDownLatch cancelled = new CountDownLatch(1);
    EncoderServiceGrpc.EncoderServiceImplBase silent =
        new EncoderServiceGrpc.EncoderServiceImplBase() {
          @Override
          public void encodeDense(
              EncodeDenseRequest request, StreamObserver<EncodeDenseResponse> responses) {
            calls.incrementAndGet();
            ((ServerCallStreamObserver<EncodeDenseResponse>) responses)
                .setOnCancelHandler(cancelled::countDown);
          }
        };
    try (var server = TestServers.inProcess(silent)) {
      EncoderClient client = new EncoderClient(server.channel(), new CallPolicy(SHORT, 4));
      long start = System.nanoTime();
      assertThatThrownBy(() -> client.encodeDense("m", List.of("1"), false, 0))
          .isInstanceOfSatisfying(
              StatusRuntimeException.class,
              e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.DEADLINE_EXCEEDED));
      long millis = Duration.ofNanos(System.nanoTime() - start).toMillis();
      assertThat(millis).as("failed after the 300 ms deadline").isBetween(280L, 5_000L);
      assertThat(calls).as("DEADLINE_EXCEEDED is not retried").hasValue(1);
      assertThat(cancelled.await(5, TimeUnit.SECONDS))
          .as("the server sees the call cancelled")
          .isTrue();
    }
  }

  @Test
  void withDeadlineChangesTheDeadlineOfEveryCall() throws Exception {
    EncoderServiceGrpc.EncoderServiceImplBase silent =
        new EncoderServiceGrpc.EncoderServiceImplBase() {
          @Override
          public void encodeDense(
              EncodeDenseRequest request, StreamObserver<EncodeDenseResponse> responses) {}
        };
    try (var server = TestServers.inProcess(silent)) {
      EncoderClient client =
          new EncoderClient(server.channel(), new CallPolicy(Duration.ofMinutes(5), 1))
              .withDeadline(Duration.ofMillis(200));
      long start = System.nanoTime();
      assertThatThrownBy(() -> client.encodeDense("m", List.of("1"), false, 0))
          .isInstanceOfSatisfying(
              StatusRuntimeException.class,
              e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.DEADLINE_EXCEEDED));
      assertThat(Duration.ofNanos(System.nanoTime() - start).toMillis()).isLessThan(5_000L);
    }
  }

  @Test
  void unavailableIsRetriedAndTheAnswerReturned() throws Exception {
    Flaky flaky =
        new Flaky(
            List.of(
                () -> Status.UNAVAILABLE.withDescription("restarting").asRuntimeException(),
                () -> StatusMapper.unavailable("stopping", Duration.ofMillis(50))));
    try (var server = TestServers.inProcess(flaky)) {
      EncoderClient client = new EncoderClient(server.channel(), new CallPolicy(SHORT, 4));
      List<float[]> vectors = client.encodeDense("m", List.of("3", "5"), true, 0);
      assertThat(vectors).containsExactly(new float[] {3, 1}, new float[] {5, 1});
      assertThat(flaky.calls).as("two failures, then the answer").hasValue(3);
    }
  }

  @Test
  void theDelayOfARetryInfoIsWaitedBeforeTheNextAttempt() throws Exception {
    Flaky flaky =
        new Flaky(List.of(() -> StatusMapper.unavailable("stopping", Duration.ofMillis(800))));
    try (var server = TestServers.inProcess(flaky)) {
      EncoderClient client = new EncoderClient(server.channel(), new CallPolicy(SHORT, 2));
      long start = System.nanoTime();
      assertThat(client.encodeDense("m", List.of("1"), false, 0)).hasSize(1);
      long millis = Duration.ofNanos(System.nanoTime() - start).toMillis();
      assertThat(flaky.calls).hasValue(2);
      assertThat(millis).as("RetryInfo asked for 800 ms").isGreaterThanOrEqualTo(800L);
    }
  }

  @Test
  void unavailableOnEveryAttemptGivesUpAfterMaxAttempts() throws Exception {
    List<Supplier<StatusRuntimeException>> always =
        Collections.nCopies(10, () -> Status.UNAVAILABLE.asRuntimeException());
    Flaky flaky = new Flaky(always);
    try (var server = TestServers.inProcess(flaky)) {
      EncoderClient client = new EncoderClient(server.channel(), new CallPolicy(SHORT, 3));
      assertThatThrownBy(() -> client.encodeDense("m", List.of("1"), false, 0))
          .isInstanceOfSatisfying(
              StatusRuntimeException.class,
              e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE));
      assertThat(flaky.calls).hasValue(3);
    }
  }

  @Test
  void invalidArgumentInternalAndResourceExhaustedWithoutRetryInfoAreNotRetriedButAnOverloadIs()
      throws Exception {
    Flaky flaky =
        new Flaky(
            List.of(
                () -> Status.INVALID_ARGUMENT.withDescription("texts[0]").asRuntimeException(),
                () -> Status.INTERNAL.asRuntimeException(),
                () -> Status.RESOURCE_EXHAUSTED.withDescription("disk full").asRuntimeException(),
                () -> StatusMapper.overloaded("busy", Duration.ofMillis(10))));
    try (var server = TestServers.inProcess(flaky)) {
      EncoderClient client = new EncoderClient(server.channel(), new CallPolicy(SHORT, 4));
      for (Status.Code code :
          List.of(
              Status.Code.INVALID_ARGUMENT, Status.Code.INTERNAL, Status.Code.RESOURCE_EXHAUSTED)) {
        int before = flaky.calls.get();
        assertThatThrownBy(() -> client.encodeDense("m", List.of("1"), false, 0))
            .isInstanceOfSatisfying(
                StatusRuntimeException.class,
                e -> assertThat(e.getStatus().getCode()).isEqualTo(code));
        assertThat(flaky.calls.get() - before).as(code + " is tried once").isEqualTo(1);
      }
      int before = flaky.calls.get();
      assertThat(client.encodeDense("m", List.of("2"), false, 0))
          .as("an overload with RetryInfo is tried again after its delay")
          .containsExactly(new float[] {2, 0});
      assertThat(flaky.calls.get() - before).isEqualTo(2);
    }
  }

  /**
   * An encoder streaming one vector a chunk that hands the first call back with UNAVAILABLE after
   * {@code before} chunks, as a stopping replica does.
   */
  private static final class HandsBackAStream extends EncoderServiceGrpc.EncoderServiceImplBase {
    final List<List<String>> asked = Collections.synchronizedList(new ArrayList<>());
    final int before;

    HandsBackAStream(int before) {
      this.before = before;
    }

    @Override
    public void streamEncodeDense(
        StreamEncodeDenseRequest request, StreamObserver<StreamEncodeDenseResponse> responses) {
      boolean first = asked.isEmpty();
      List<String> texts = request.getRequest().getTextsList();
      asked.add(List.copyOf(texts));
      int chunk = Math.max(1, request.getChunkSize());
      for (int offset = 0; offset < texts.size(); offset += chunk) {
        if (first && offset / chunk == before) {
          responses.onError(StatusMapper.unavailable("stopping", Duration.ofMillis(20)));
          return;
        }
        StreamEncodeDenseResponse.Builder message =
            StreamEncodeDenseResponse.newBuilder().setOffset(offset);
        for (String text : texts.subList(offset, Math.min(texts.size(), offset + chunk))) {
          message.addVectors(vectorOf(text, request.getRequest().getRole()));
        }
        responses.onNext(message.build());
      }
      responses.onCompleted();
    }
  }

  @Test
  void aStreamedEncodeHandedBackResumesFromTheFirstTextWithoutAVector() throws Exception {
    HandsBackAStream encoder = new HandsBackAStream(2);
    List<String> texts = numbers(7);
    try (var server = TestServers.inProcess(encoder)) {
      EncoderClient client = new EncoderClient(server.channel(), new CallPolicy(SHORT, 3));
      List<Integer> progress = Collections.synchronizedList(new ArrayList<>());
      List<float[]> vectors = client.streamEncodeDense("m", texts, false, 2, progress::add);
      assertThat(vectors).hasSize(7);
      for (int i = 0; i < 7; i++) {
        assertThat(vectors.get(i)).as("vector " + i).containsExactly(i, 0);
      }
      assertThat(encoder.asked)
          .as("the second call asks only for the texts without a vector")
          .containsExactly(texts, texts.subList(4, 7));
      assertThat(progress).containsExactly(2, 4, 6, 7);
    }
  }

  @Test
  void aStreamedEncodeIsNotResumedAfterAnotherFailure() throws Exception {
    AtomicInteger calls = new AtomicInteger();
    EncoderServiceGrpc.EncoderServiceImplBase refusing =
        new EncoderServiceGrpc.EncoderServiceImplBase() {
          @Override
          public void streamEncodeDense(
              StreamEncodeDenseRequest request,
              StreamObserver<StreamEncodeDenseResponse> responses) {
            calls.incrementAndGet();
            responses.onNext(
                StreamEncodeDenseResponse.newBuilder()
                    .addVectors(vectorOf("0", InputRole.INPUT_ROLE_DOCUMENT))
                    .build());
            responses.onError(Status.INVALID_ARGUMENT.withDescription("texts[1]").asException());
          }
        };
    try (var server = TestServers.inProcess(refusing)) {
      EncoderClient client = new EncoderClient(server.channel(), new CallPolicy(SHORT, 4));
      assertThatThrownBy(() -> client.streamEncodeDense("m", numbers(3), false, 1, done -> {}))
          .isInstanceOfSatisfying(
              StatusRuntimeException.class,
              e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT));
      assertThat(calls).hasValue(1);
    }
  }

  @Test
  void everyPageOfTheModelsIsListed() throws Exception {
    List<String> tokens = Collections.synchronizedList(new ArrayList<>());
    EncoderServiceGrpc.EncoderServiceImplBase paged =
        new EncoderServiceGrpc.EncoderServiceImplBase() {
          @Override
          public void listModels(
              ListModelsRequest request, StreamObserver<ListModelsResponse> responses) {
            tokens.add(request.getPageToken());
            ListModelsResponse page =
                switch (request.getPageToken()) {
                  case "" ->
                      ListModelsResponse.newBuilder()
                          .addModels(ModelCard.newBuilder().setId("a"))
                          .addModels(ModelCard.newBuilder().setId("b"))
                          .setNextPageToken("after-b")
                          .build();
                  case "after-b" ->
                      ListModelsResponse.newBuilder()
                          .addModels(ModelCard.newBuilder().setId("c"))
                          .build();
                  default -> throw new IllegalStateException(request.getPageToken());
                };
            responses.onNext(page);
            responses.onCompleted();
          }
        };
    try (var server = TestServers.inProcess(paged)) {
      EncoderClient client = new EncoderClient(server.channel(), new CallPolicy(SHORT, 1));
      assertThat(client.listModels()).extracting(ModelCard::getId).containsExactly("a", "b", "c");
      assertThat(tokens).containsExactly("", "after-b");
    }
  }

  @Test
  void aLightCacheBuildReportsProgressAndReturnsTheCache() throws Exception {
    LightCache cache =
        LightCache.newBuilder().setVocabularySize(10).setDimension(4).setLocation("x").build();
    EncoderServiceGrpc.EncoderServiceImplBase building =
        new EncoderServiceGrpc.EncoderServiceImplBase() {
          @Override
          public void buildLightCache(
              BuildLightCacheRequest request, StreamObserver<BuildLightCacheResponse> responses) {
            responses.onNext(
                BuildLightCacheResponse.newBuilder().setRowsDone(4).setVocabularySize(10).build());
            responses.onNext(
                BuildLightCacheResponse.newBuilder()
                    .setRowsDone(10)
                    .setVocabularySize(10)
                    .setCache(cache)
                    .build());
            responses.onCompleted();
          }
        };
    try (var server = TestServers.inProcess(building)) {
      EncoderClient client = new EncoderClient(server.channel(), new CallPolicy(SHORT, 1));
      List<Integer> rows = new ArrayList<>();
      assertThat(
              client.buildLightCache(
                  "m",
                  LightCacheDtype.LIGHT_CACHE_DTYPE_UNSPECIFIED,
                  0,
                  (done, of) -> rows.add(done)))
          .isEqualTo(cache);
      assertThat(rows).containsExactly(4, 10);
    }
  }

  @Test
  void aLightCacheBuildThatEndsWithoutTheCacheIsInternal() throws Exception {
    EncoderServiceGrpc.EncoderServiceImplBase unfinished =
        new EncoderServiceGrpc.EncoderServiceImplBase() {
          @Override
          public void buildLightCache(
              BuildLightCacheRequest request, StreamObserver<BuildLightCacheResponse> responses) {
            responses.onNext(BuildLightCacheResponse.newBuilder().setRowsDone(1).build());
            responses.onCompleted();
          }
        };
    try (var server = TestServers.inProcess(unfinished)) {
      EncoderClient client = new EncoderClient(server.channel(), new CallPolicy(SHORT, 3));
      assertThatThrownBy(
              () ->
                  client.buildLightCache(
                      "m", LightCacheDtype.LIGHT_CACHE_DTYPE_UNSPECIFIED, 0, (done, of) -> {}))
          .isInstanceOfSatisfying(
              StatusRuntimeException.class,
              e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.INTERNAL));
    }
  }

  @Test
  void aProgressListenerThatThrowsCancelsTheBuildOnTheServer() throws Exception {
    CountDownLatch cancelled = new CountDownLatch(1);
    EncoderServiceGrpc.EncoderServiceImplBase endless =
        new EncoderServiceGrpc.EncoderServiceImplBase() {
          @Override
          public void buildLightCache(
              BuildLightCacheRequest request, StreamObserver<BuildLightCacheResponse> responses) {
            ((ServerCallStreamObserver<BuildLightCacheResponse>) responses)
                .setOnCancelHandler(cancelled::countDown);
            responses.onNext(BuildLightCacheResponse.newBuilder().setRowsDone(1).build());
          }
        };
    try (var server = TestServers.inProcess(endless)) {
      EncoderClient client =
          new EncoderClient(server.channel(), new CallPolicy(Duration.ofMinutes(1), 1));
      assertThatThrownBy(
              () ->
                  client.buildLightCache(
                      "m",
                      LightCacheDtype.LIGHT_CACHE_DTYPE_UNSPECIFIED,
                      0,
                      (done, of) -> {
                        throw new IllegalStateException("job cancelled");
                      }))
          .hasMessageContaining("job cancelled");
      assertThat(cancelled.await(5, TimeUnit.SECONDS))
          .as("the server's build is cancelled")
          .isTrue();
    }
  }
}
