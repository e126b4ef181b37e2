package dev.tenbin.encoder;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tenbin.core.Cancellation;
import dev.tenbin.core.PermissionDeniedException;
import dev.tenbin.encoder.config.EncoderServiceConfig;
import dev.tenbin.encoder.server.EncoderServer;
import dev.tenbin.model.ModelPolicy;
import dev.tenbin.model.card.ModelCard;
import dev.tenbin.proto.encoder.v1.EncodeDenseRequest;
import dev.tenbin.proto.encoder.v1.EncoderServiceGrpc;
import dev.tenbin.proto.encoder.v1.GetModelInfoRequest;
import dev.tenbin.proto.encoder.v1.InputRole;
import dev.tenbin.proto.encoder.v1.ListModelsRequest;
import dev.tenbin.rpc.StatusMapper;
import dev.tenbin.testing.models.TinyModels;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Which models a service may load (--allow-models) and idle unloading (--model-idle-seconds). */
class ModelPolicyAndIdleTest {
  @TempDir Path tmp;
  Path models;

  @BeforeEach
  void models() throws Exception {
    models = tmp.resolve("models");
    TinyModels.dense(models, "tiny-dense", false);
    TinyModels.dense(models, "other-dense", false);
  }

  /**
   * A network-style config: a hub that cannot be reached (a download attempt would fail otherwise).
   */
  private EncoderServiceConfig config(ModelPolicy policy) {
    return EncoderServiceConfig.embedded(models, tmp.resolve("cache"))
        .withHubEndpoint("http://127.0.0.1:9")
        .withModels(policy);
  }

  private static void awaitTrue(java.util.function.BooleanSupplier condition)
      throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
    while (!condition.getAsBoolean()) {
      assertThat(System.nanoTime()).as("waited too long").isLessThan(deadline);
      Thread.sleep(10);
    }
  }

  @Test
  void aHubModelIsPermissionDeniedByDefaultWithoutAnyDownload() {
    try (EncoderCore core = new EncoderCore(config(ModelPolicy.of(List.of(), 0)))) {
      assertThatThrownBy(
              () ->
                  core.encodeDense(
                      "hub:acme/model@main", List.of("apple"), false, 0, Cancellation.NEVER))
          .isInstanceOfSatisfying(
              PermissionDeniedException.class, e -> assertThat(e.field()).isEqualTo("model_id"));
      assertThat(
              core.encodeDense("tiny-dense", List.of("apple"), false, 0, Cancellation.NEVER)
                  .vectors())
          .hasSize(1);
    }
    // The embedded services of tenbin run/eval allow what the user names: the hub is tried (and
    // unreachable).
    try (EncoderCore core = new EncoderCore(config(ModelPolicy.allowAll()))) {
      assertThatThrownBy(() -> core.model("hub:acme/model@main"))
          .isNotInstanceOf(PermissionDeniedException.class);
    }
  }

  @Test
  void overGrpcADisallowedModelIsPermissionDeniedAndListModelsShowsOnlyAllowedOnes() {
    String name = "policy-" + UUID.randomUUID();
    try (EncoderServer.Embedded server =
        EncoderServer.startInProcess(
            name, config(ModelPolicy.of(List.of("tiny-*"), 0)), new SimpleMeterRegistry())) {
      ManagedChannel channel = InProcessChannelBuilder.forName(name).directExecutor().build();
      try {
        var stub = EncoderServiceGrpc.newBlockingStub(channel);
        for (String denied : List.of("other-dense", "all-minilm-l6-v2", "hub:BAAI/bge-m3@main")) {
          assertThatThrownBy(
                  () ->
                      stub.encodeDense(
                          EncodeDenseRequest.newBuilder()
                              .setModelId(denied)
                              .addTexts("apple")
                              .setRole(InputRole.INPUT_ROLE_DOCUMENT)
                              .build()))
              .isInstanceOfSatisfying(
                  StatusRuntimeException.class,
                  e -> {
                    assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.PERMISSION_DENIED);
                    assertThat(StatusMapper.violatedField(e)).isEqualTo("model_id");
                  });
          assertThatThrownBy(
                  () ->
                      stub.getModelInfo(
                          GetModelInfoRequest.newBuilder().setModelId(denied).build()))
              .isInstanceOfSatisfying(
                  StatusRuntimeException.class,
                  e ->
                      assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.PERMISSION_DENIED));
        }
        assertThat(stub.listModels(ListModelsRequest.getDefaultInstance()).getModelsList())
            .extracting(card -> card.getId())
            .containsExactly("tiny-dense");
        assertThat(server.core().loadedModels()).isEmpty();
      } finally {
        channel.shutdownNow();
      }
    }
  }

  @Test
  void anIdleModelIsUnloadedWithItsThreadsAndLoadsAgainOnTheNextCall() throws Exception {
    // Long enough that a stalled test thread still sees the model loaded before it goes idle.
    try (EncoderCore core =
        new EncoderCore(config(new ModelPolicy(List.of("local:*"), Duration.ofSeconds(2))))) {
      float[] first =
          core.encodeDense("tiny-dense", List.of("apple"), false, 0, Cancellation.NEVER)
              .vectors()
              .getFirst();
      assertThat(core.loadedModels()).containsExactly("tiny-dense");
      awaitTrue(() -> core.loadedModels().isEmpty());
      awaitTrue(
          () ->
              Thread.getAllStackTraces().keySet().stream()
                  .noneMatch(t -> t.getName().startsWith("batcher-tiny-dense") && t.isAlive()));
      float[] again =
          core.encodeDense("tiny-dense", List.of("apple"), false, 0, Cancellation.NEVER)
              .vectors()
              .getFirst();
      assertThat(again).containsExactly(first);
    }
  }

  @Test
  void modelInfoDoesNotPinAModelAndIsAnsweredWithoutReloading() throws Exception {
    try (EncoderCore core =
        new EncoderCore(config(new ModelPolicy(List.of("local:*"), Duration.ofMillis(100))))) {
      EncoderCore.ModelInfo info = core.info("tiny-dense");
      assertThat(info.card().id()).isEqualTo("tiny-dense");
      assertThat(info.dtype()).isEqualTo("FLOAT");
      awaitTrue(() -> core.loadedModels().isEmpty());
      assertThat(core.info("tiny-dense").card().dimension()).isEqualTo(TinyModels.HIDDEN);
      assertThat(core.loadedModels()).as("answered from what the first load recorded").isEmpty();
      assertThat(core.availableModels()).extracting(ModelCard::id).contains("tiny-dense");
    }
  }

  @Test
  void callsRacingIdleUnloadingAllSucceedWithFreshlyLoadedModels() throws Exception {
    try (EncoderCore core =
        new EncoderCore(config(new ModelPolicy(List.of("local:*"), Duration.ofMillis(1))))) {
      AtomicInteger ok = new AtomicInteger();
      List<Throwable> failures = java.util.Collections.synchronizedList(new ArrayList<>());
      AtomicBoolean sawUnloaded = new AtomicBoolean();
      List<Thread> threads = new ArrayList<>();
      for (int t = 0; t < 3; t++) {
        int seed = t;
        threads.add(
            Thread.ofPlatform()
                .start(
                    () -> {
                      for (int i = 0; i < 40; i++) {
                        try {
                          core.encodeDense(
                              "tiny-dense",
                              List.of("apple banana", "cherry"),
                              false,
                              0,
                              Cancellation.NEVER);
                          ok.incrementAndGet();
                          Thread.sleep((i + seed) % 4 * 20L);
                        } catch (RuntimeException | Error e) {
                          failures.add(e);
                        } catch (InterruptedException e) {
                          return;
                        }
                      }
                    }));
      }
      Thread sampler =
          Thread.ofPlatform()
              .start(
                  () -> {
                    while (threads.stream().anyMatch(Thread::isAlive)) {
                      if (core.loadedModels().isEmpty()) {
                        sawUnloaded.set(true);
                      }
                      try {
                        Thread.sleep(1);
                      } catch (InterruptedException e) {
                        return;
                      }
                    }
                  });
      for (Thread thread : threads) {
        thread.join(60_000);
      }
      sampler.join(10_000);
      assertThat(failures).isEmpty();
      assertThat(ok).hasValue(120);
      assertThat(sawUnloaded).as("the model was unloaded between calls").isTrue();
    }
  }
}
