package dev.tenbin.rerank;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tenbin.core.Cancellation;
import dev.tenbin.core.CancelledException;
import dev.tenbin.core.PermissionDeniedException;
import dev.tenbin.core.UnavailableException;
import dev.tenbin.model.ModelPolicy;
import dev.tenbin.model.hub.HubDownloader;
import dev.tenbin.model.onnx.OnnxModel;
import dev.tenbin.proto.rerank.v1.Candidate;
import dev.tenbin.proto.rerank.v1.RerankRequest;
import dev.tenbin.proto.rerank.v1.RerankServiceGrpc;
import dev.tenbin.rerank.cross.RerankerRegistry;
import dev.tenbin.rerank.cross.ScorePrecision;
import dev.tenbin.rerank.grpc.RerankGrpcService;
import dev.tenbin.rpc.GrpcServerHost;
import dev.tenbin.rpc.StatusMapper;
import dev.tenbin.testing.models.TinyModels;
import dev.tenbin.testing.models.TinyOnnxModels;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Cross-encoders' lifetime and policy: closing during scoring ends calls cleanly, disallowed models
 * are PERMISSION_DENIED, idle ones unload. Stress rounds: {@code -Dtenbin.stress=N} (default 2).
 */
class RerankLifetimeTest {
  private static final int ROUNDS = Integer.getInteger("tenbin.stress", 2);
  @TempDir Path tmp;

  @BeforeEach
  void models() throws Exception {
    Path dir = Files.createDirectories(tmp.resolve("models").resolve("tiny-sigmoid"));
    Files.write(
        dir.resolve("model.onnx"),
        TinyOnnxModels.pairClassifier(
            TinyOnnxModels.table(TinyModels.VOCABULARY, TinyModels.HIDDEN, 1),
            TinyOnnxModels.table(TinyModels.HIDDEN, 1, 2),
            TinyModels.VOCABULARY,
            TinyModels.HIDDEN,
            1,
            false));
    Files.write(dir.resolve("tokenizer.json"), TinyOnnxModels.wordLevelTokenizer(TinyModels.WORDS));
    Files.writeString(dir.resolve("card.json"), "{\"id\":\"tiny-sigmoid\",\"head\":\"SIGMOID\"}");
  }

  private RerankCore core(ModelPolicy policy, int maxBatchTokens) {
    RerankerRegistry registry =
        new RerankerRegistry(
            tmp.resolve("models"),
            new HubDownloader("http://127.0.0.1:9", tmp.resolve("cache"), null),
            OnnxModel.RuntimeOptions.cpu(1),
            maxBatchTokens,
            policy);
    return new RerankCore(
        registry,
        () -> {
          throw new IllegalStateException("no encoder in this test");
        },
        1000);
  }

  private static List<RerankCore.Candidate> candidates(int count, long seed) {
    Random random = new Random(seed);
    List<RerankCore.Candidate> candidates = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      StringBuilder text = new StringBuilder();
      for (int w = 1 + random.nextInt(12); w > 0; w--) {
        text.append(TinyModels.WORDS.get(random.nextInt(TinyModels.WORDS.size()))).append(' ');
      }
      candidates.add(new RerankCore.Candidate("d" + i, text.toString().trim()));
    }
    return candidates;
  }

  @Test
  void closingCrossEncodersDuringScoringEndsEveryCallOkOrUnavailable() throws Exception {
    List<RerankCore.Candidate> candidates = candidates(600, 1);
    for (int round = 0; round < ROUNDS; round++) {
      // Passes of at most 32 padded tokens: a call runs many passes.
      RerankCore core = core(ModelPolicy.allowAll(), 32);
      core.rerank(
          "tiny-sigmoid",
          "apple",
          candidates.subList(0, 2),
          ScorePrecision.FP32,
          0,
          Cancellation.NEVER);
      AtomicInteger ok = new AtomicInteger();
      AtomicInteger unavailable = new AtomicInteger();
      List<Throwable> unexpected = Collections.synchronizedList(new ArrayList<>());
      List<Thread> threads = new ArrayList<>();
      for (int t = 0; t < 3; t++) {
        threads.add(
            Thread.ofPlatform()
                .start(
                    () -> {
                      while (true) {
                        try {
                          core.rerank(
                              "tiny-sigmoid",
                              "apple cherry",
                              candidates,
                              ScorePrecision.FP32,
                              10,
                              Cancellation.NEVER);
                          ok.incrementAndGet();
                        } catch (UnavailableException closed) {
                          unavailable.incrementAndGet();
                          return;
                        } catch (RuntimeException | Error e) {
                          unexpected.add(e);
                          return;
                        }
                      }
                    }));
      }
      Thread.sleep(5 + round % 17);
      core.close();
      for (Thread thread : threads) {
        thread.join(30_000);
        assertThat(thread.isAlive()).isFalse();
      }
      assertThat(unexpected).isEmpty();
      assertThat(unavailable).hasValue(3);
    }
  }

  @Test
  void cancellingAScoringCallEndsItCancelled() {
    try (RerankCore core = core(ModelPolicy.allowAll(), 32)) {
      AtomicInteger asked = new AtomicInteger();
      assertThatThrownBy(
              () ->
                  core.rerank(
                      "tiny-sigmoid",
                      "apple",
                      candidates(600, 2),
                      ScorePrecision.FP32,
                      0,
                      () -> asked.incrementAndGet() > 50))
          .isInstanceOf(CancelledException.class);
      assertThat(asked).hasValue(51);
    }
  }

  @Test
  void aDisallowedRerankerIsPermissionDeniedOverGrpcWithoutDownloading() {
    String name = "rerank-policy-" + UUID.randomUUID();
    try (RerankCore core = core(ModelPolicy.of(List.of("local:tiny-*"), 0));
        GrpcServerHost host =
            GrpcServerHost.startInProcess(
                name, new SimpleMeterRegistry(), List.of(new RerankGrpcService(core)))) {
      ManagedChannel channel = InProcessChannelBuilder.forName(name).directExecutor().build();
      try {
        var stub = RerankServiceGrpc.newBlockingStub(channel);
        RerankRequest.Builder request =
            RerankRequest.newBuilder()
                .setQuery("apple")
                .addCandidates(Candidate.newBuilder().setDocId("d").setText("fig"));
        assertThat(stub.rerank(request.setModelId("tiny-sigmoid").build()).getDocumentsCount())
            .isEqualTo(1);
        assertThatThrownBy(() -> stub.rerank(request.setModelId("hub:acme/reranker@main").build()))
            .isInstanceOfSatisfying(
                StatusRuntimeException.class,
                e -> {
                  assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.PERMISSION_DENIED);
                  assertThat(StatusMapper.violatedField(e)).isEqualTo("model_id");
                });
      } finally {
        channel.shutdownNow();
      }
    }
    try (RerankCore core = core(ModelPolicy.of(List.of("local:other-*"), 0))) {
      assertThatThrownBy(() -> core.crossEncoders().info("tiny-sigmoid"))
          .isInstanceOf(PermissionDeniedException.class);
    }
  }

  private RerankCore core(ModelPolicy policy) {
    return core(policy, 8192);
  }

  @Test
  void anIdleCrossEncoderIsUnloadedAndTheLoadedGaugeFollows() throws Exception {
    // Long enough that a stalled test thread still reads the gauge before the model goes idle.
    try (RerankCore core = core(new ModelPolicy(List.of("local:*"), Duration.ofSeconds(2)))) {
      SimpleMeterRegistry registry = new SimpleMeterRegistry();
      core.bindTo(registry);
      core.rerank(
          "tiny-sigmoid", "apple", candidates(3, 3), ScorePrecision.FP32, 0, Cancellation.NEVER);
      assertThat(registry.get("tenbin.rerank.models.loaded").gauge().value()).isEqualTo(1);
      long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
      while (!core.crossEncoders().loadedIds().isEmpty()) {
        assertThat(System.nanoTime()).isLessThan(deadline);
        Thread.sleep(10);
      }
      assertThat(registry.get("tenbin.rerank.models.loaded").gauge().value()).isZero();
      assertThat(core.crossEncoders().info("tiny-sigmoid").dtype()).isEqualTo("FLOAT");
      assertThat(
              core.rerank(
                      "tiny-sigmoid",
                      "apple",
                      candidates(3, 3),
                      ScorePrecision.FP32,
                      0,
                      Cancellation.NEVER)
                  .documents())
          .hasSize(3);
    }
  }
}
