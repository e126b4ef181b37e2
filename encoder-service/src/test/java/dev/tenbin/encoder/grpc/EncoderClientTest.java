package dev.tenbin.encoder.grpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tenbin.client.CallPolicy;
import dev.tenbin.client.encoder.EncoderClient;
import dev.tenbin.core.Cancellation;
import dev.tenbin.encoder.SparseVector;
import dev.tenbin.encoder.config.EncoderServiceConfig;
import dev.tenbin.encoder.server.EncoderServer;
import dev.tenbin.testing.models.TinyModels;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.ClientInterceptor;
import io.grpc.ClientInterceptors;
import io.grpc.ManagedChannel;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The client's streaming helpers give what the unary calls give, in order, with progress. */
class EncoderClientTest {
  private static final List<String> TEXTS =
      List.of("apple", "banana cherry", "date", "elder fig grape", "apple apple");

  @TempDir Path tmp;
  EncoderServer.Embedded server;
  ManagedChannel channel;
  EncoderClient client;

  @BeforeEach
  void start() throws Exception {
    Path models = tmp.resolve("models");
    TinyModels.dense(models, "tiny-dense", false);
    TinyModels.sparse(models, "tiny-splade");
    TinyModels.multiVector(models, "tiny-colbert");
    String name = "encoder-client-" + UUID.randomUUID();
    server =
        EncoderServer.startInProcess(
            name,
            EncoderServiceConfig.embedded(models, tmp.resolve("cache")),
            new SimpleMeterRegistry());
    channel = InProcessChannelBuilder.forName(name).build();
    client = EncoderClient.of(channel).withDeadline(Duration.ofSeconds(30));
  }

  @AfterEach
  void stop() {
    channel.shutdownNow();
    server.close();
  }

  @Test
  void streamedSparseVectorsEqualTheUnaryOnesInOrder() {
    List<Integer> progress = new ArrayList<>();
    List<dev.tenbin.proto.common.v1.SparseVector> streamed =
        client.streamEncodeSparse("tiny-splade", TEXTS, false, 3, 2, progress::add);
    List<SparseVector> unary =
        server.core().encodeSparse("tiny-splade", TEXTS, false, 3, Cancellation.NEVER).vectors();
    assertThat(progress).containsExactly(2, 4, 5);
    assertThat(streamed).hasSize(TEXTS.size());
    for (int i = 0; i < TEXTS.size(); i++) {
      assertThat(streamed.get(i).getIndicesList()).containsExactly(boxed(unary.get(i).indices()));
      assertThat(streamed.get(i).getValuesList()).containsExactly(boxed(unary.get(i).values()));
    }
  }

  @Test
  void streamedMultiVectorsKeepOneRowPerToken() {
    List<float[][]> streamed =
        client.streamEncodeMultiVector("tiny-colbert", TEXTS, true, 2, done -> {});
    List<float[][]> unary = client.encodeMultiVector("tiny-colbert", TEXTS, true);
    assertThat(streamed).hasSize(TEXTS.size());
    assertThat(streamed.get(3)).hasNumberOfRows(5); // [CLS] elder fig grape [SEP]
    for (int i = 0; i < TEXTS.size(); i++) {
      assertThat(streamed.get(i)).isDeepEqualTo(unary.get(i));
    }
  }

  @Test
  void tokenizeLightSparseAndListModelsDescribeTheService() {
    var tokens = client.tokenize("tiny-dense", List.of("apple banana"), true);
    assertThat(tokens.ids()[0]).containsExactly(2, 11, 4, 5, 3); // [CLS] query apple banana [SEP]
    assertThat(tokens.truncated()).containsExactly(false);
    var counts = client.encodeLightSparse("tiny-dense", List.of("fig fig apple")).getFirst();
    assertThat(counts.getIndicesList()).containsExactly(4, 9);
    assertThat(counts.getValuesList()).containsExactly(1f, 2f);
    assertThat(client.listModels())
        .extracting(card -> card.getId())
        .contains("tiny-dense", "tiny-splade", "all-minilm-l6-v2");
  }

  @Test
  void errorsOtherThanUnavailableAreNotRetried() {
    AtomicInteger calls = new AtomicInteger();
    ClientInterceptor counting =
        new ClientInterceptor() {
          @Override
          public <Q, R> ClientCall<Q, R> interceptCall(
              MethodDescriptor<Q, R> method, CallOptions options, Channel next) {
            calls.incrementAndGet();
            return next.newCall(method, options);
          }
        };
    EncoderClient counted =
        new EncoderClient(
            ClientInterceptors.intercept(channel, counting),
            new CallPolicy(Duration.ofSeconds(30), 4));
    assertThatThrownBy(() -> counted.encodeDense("no-such-model", List.of("x"), false, 0))
        .isInstanceOfSatisfying(
            StatusRuntimeException.class,
            e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.NOT_FOUND));
    assertThat(calls).hasValue(1);
  }

  private static Integer[] boxed(int[] values) {
    return java.util.Arrays.stream(values).boxed().toArray(Integer[]::new);
  }

  private static Float[] boxed(float[] values) {
    Float[] out = new Float[values.length];
    for (int i = 0; i < values.length; i++) {
      out[i] = values[i];
    }
    return out;
  }
}
