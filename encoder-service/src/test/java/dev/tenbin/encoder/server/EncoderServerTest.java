package dev.tenbin.encoder.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tenbin.encoder.config.EncoderServiceConfig;
import dev.tenbin.model.ModelPolicy;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** The server's flags become one validated config record. */
class EncoderServerTest {
  private static EncoderServiceConfig parse(String... args) {
    EncoderServer server = new EncoderServer();
    new CommandLine(server).parseArgs(args);
    return server.config();
  }

  @Test
  void withoutATokenBudgetTheExecutionProvidersIsUsed() {
    EncoderServiceConfig cpu = parse();
    assertThat(cpu.batching().maxBatchTokens())
        .isEqualTo(dev.tenbin.encoder.batching.BatchingLimits.CPU_BATCH_TOKENS);
    EncoderServiceConfig cuda =
        cpu.withRuntime(new dev.tenbin.model.onnx.OnnxModel.RuntimeOptions(2, true));
    assertThat(cuda.batching().maxBatchTokens())
        .isEqualTo(dev.tenbin.encoder.batching.BatchingLimits.GPU_BATCH_TOKENS);
    // The embedded default (tenbin eval, tenbin run) is left to the provider too.
    assertThat(
            EncoderServiceConfig.embedded(Path.of("m"), Path.of("c")).batching().maxBatchTokens())
        .isEqualTo(dev.tenbin.encoder.batching.BatchingLimits.CPU_BATCH_TOKENS);
  }

  @Test
  void flagsBecomeTheConfigRecord() {
    EncoderServiceConfig config =
        parse(
            "--port",
            "6000",
            "--models-dir",
            "/m",
            "--cache-dir",
            "/c",
            "--intra-op-threads",
            "3",
            "--max-batch-tokens",
            "4096",
            "--max-queued-inputs",
            "500",
            "--max-queue-delay-ms",
            "5",
            "--max-inputs-per-request",
            "100",
            "--max-text-chars",
            "2000");
    assertThat(config.server().port()).isEqualTo(6000);
    assertThat(config.modelsDirectory()).isEqualTo(Path.of("/m"));
    assertThat(config.cacheDirectory()).isEqualTo(Path.of("/c"));
    assertThat(config.runtime().intraOpThreads()).isEqualTo(3);
    assertThat(config.runtime().cuda()).isFalse();
    assertThat(config.batching().maxBatchTokens()).isEqualTo(4096);
    assertThat(config.batching().maxQueuedInputs()).isEqualTo(500);
    assertThat(config.batching().maxQueueDelay()).isEqualTo(Duration.ofMillis(5));
    assertThat(config.maxInputsPerRequest()).isEqualTo(100);
    assertThat(config.maxTextChars()).isEqualTo(2000);
  }

  @Test
  void theDefaultPortIs50051AndTheDefaultProviderTheCpu() {
    assertThat(parse().server().port())
        .isEqualTo(EncoderServiceConfig.DEFAULT_PORT)
        .isEqualTo(50051);
    assertThat(parse().runtime().cuda()).isFalse();
  }

  private static boolean buildHasCuda() {
    return dev.tenbin.model.onnx.OnnxEnvironment.cudaAvailable();
  }

  @Test
  void cudaItsDeviceAndArenaLimitAreChosenByFlagOnACudaBuild() {
    org.junit.jupiter.api.Assumptions.assumeTrue(buildHasCuda(), "a -Pgpu build");
    var runtime =
        parse("--execution-provider", "CUDA", "--device-id", "1", "--gpu-mem-limit", "2g")
            .runtime();
    assertThat(runtime.cuda()).isTrue();
    assertThat(runtime.deviceId()).isEqualTo(1);
    assertThat(runtime.gpuMemLimitBytes()).isEqualTo(2L << 30);
  }

  @Test
  void cudaOnABuildWithoutItIsRefusedWhenTheFlagsAreRead() {
    org.junit.jupiter.api.Assumptions.assumeFalse(buildHasCuda(), "a -Pgpu build");
    assertThatThrownBy(() -> parse("--execution-provider", "CUDA"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("-Pgpu");
  }

  @Test
  void inconsistentFlagsAreRefusedWithAClearMessage() {
    assertThatThrownBy(() -> parse("--execution-provider", "tpu"))
        .hasMessageContaining("cpu or cuda");
    assertThatThrownBy(() -> parse("--max-queued-inputs", "10", "--max-inputs-per-request", "20"))
        .hasMessageContaining(
            "--max-inputs-per-request (20) must not exceed --max-queued-inputs (10)");
  }

  @Test
  void aNetworkServerAllowsBuiltInAndLocalModelsUnloadsIdleOnesAndBoundsRequestsByDefault() {
    EncoderServiceConfig config = parse();
    assertThat(config.models().allow()).containsExactly("builtin:*", "local:*");
    assertThat(config.models().idleUnload()).isEqualTo(Duration.ofMinutes(10));
    assertThat(config.maxRequestChars()).isEqualTo(EncoderServiceConfig.DEFAULT_MAX_REQUEST_CHARS);
    assertThat(config.batching().maxQueueWait()).isEqualTo(Duration.ofSeconds(10));
  }

  @Test
  void modelPolicyAndBoundsComeFromFlags() {
    EncoderServiceConfig config =
        parse(
            "--allow-models",
            "bge-*,e5-*",
            "--allow-models",
            "hub:BAAI/*",
            "--model-idle-seconds",
            "0",
            "--max-request-chars",
            "500000",
            "--max-queue-wait-seconds",
            "3");
    assertThat(config.models().allow()).containsExactly("bge-*", "e5-*", "hub:BAAI/*");
    assertThat(config.models().idleUnload()).isZero();
    assertThat(config.maxRequestChars()).isEqualTo(500_000);
    assertThat(config.batching().maxQueueWait()).isEqualTo(Duration.ofSeconds(3));
    assertThatThrownBy(() -> parse("--model-idle-seconds", "-1"))
        .hasMessageContaining("--model-idle-seconds");
    assertThatThrownBy(() -> parse("--max-request-chars", "10"))
        .hasMessageContaining("--max-request-chars");
  }

  @Test
  void theHttpEndpointIsOffByDefaultAndOnWithHttpPort() {
    assertThat(parse().httpPort()).isEqualTo(EncoderServiceConfig.NO_HTTP).isEqualTo(-1);
    assertThat(parse("--http-port", "8080").httpPort()).isEqualTo(8080);
    assertThat(parse("--http-port", "8080").withModels(ModelPolicy.allowAll()).httpPort())
        .as("the with* copies keep the HTTP port")
        .isEqualTo(8080);
    assertThat(EncoderServiceConfig.embedded(Path.of("m"), Path.of("c")).httpPort())
        .isEqualTo(EncoderServiceConfig.NO_HTTP);
    assertThatThrownBy(
            () ->
                EncoderServer.startInProcess(
                    "no-http",
                    EncoderServiceConfig.embedded(Path.of("m"), Path.of("c")).withHttpPort(0),
                    new io.micrometer.core.instrument.simple.SimpleMeterRegistry()))
        .hasMessageContaining("--http-port needs a network server");
  }

  @Test
  void theEmbeddedServicesAllowEveryModelAndNeverUnload() {
    EncoderServiceConfig embedded = EncoderServiceConfig.embedded(Path.of("m"), Path.of("c"));
    assertThat(embedded.models().allow()).contains("hub:*");
    assertThat(embedded.models().idleUnload()).isZero();
  }

  @org.junit.jupiter.params.ParameterizedTest(name = "[{index}] {0} {1}")
  @org.junit.jupiter.params.provider.CsvSource({
    "--intra-op-threads,-1,--intra-op-threads must be 0 (one per core) or positive",
    "--max-batch-tokens,-1,--max-batch-tokens must be positive, or 0 for the execution provider",
    "--max-batch-size,0,--max-batch-size must be positive",
    "--max-queued-inputs,0,--max-queued-inputs must be positive",
    "--max-queue-delay-ms,-1,--max-queue-delay-ms must not be negative",
    "--max-queue-wait-seconds,-1,--max-queue-wait-seconds must not be negative",
    "--max-inputs-per-request,0,--max-inputs-per-request must be positive",
    "--max-text-chars,0,--max-text-chars must be positive",
    "--hub-endpoint,not a url,--hub-endpoint (env HF_ENDPOINT)",
    "--metrics-port,-5,--metrics-port must be -1 (off) or within 0..65535",
    "--http-port,-2,--http-port must be -1 (off) or within 0..65535",
    "--http-port,70000,--http-port must be -1 (off) or within 0..65535",
  })
  void aBadValueIsRefusedAtStartNamingTheFlag(String flag, String value, String message) {
    assertThatThrownBy(() -> parse(flag, value))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(message);
  }

  @Test
  void theHubTokenNeverShowsInTheConfig() {
    var hub = new dev.tenbin.model.hub.HubAccess("https://huggingface.co", "hf_secret_token_value");
    assertThat(hub.toString()).doesNotContain("hf_secret").contains("token=set");
    assertThat(parse().withModels(dev.tenbin.model.ModelPolicy.allowAll()).toString())
        .doesNotContain("hf_");
  }

  @Test
  void aStoppedServerHasClosedItsCore(@org.junit.jupiter.api.io.TempDir Path tmp) {
    EncoderServiceConfig config =
        parse(
            "--port",
            "0",
            "--metrics-port",
            "-1",
            "--models-dir",
            tmp.resolve("m").toString(),
            "--cache-dir",
            tmp.resolve("c").toString());
    EncoderServer.Embedded running = EncoderServer.start(config);
    try {
      assertThat(running.host().port()).isPositive();
      running.host().close();
      assertThatThrownBy(() -> running.core().acquire("bge-small-en-v1.5"))
          .as("the host closed the core it owns")
          .isInstanceOf(dev.tenbin.core.UnavailableException.class);
    } finally {
      running.close();
    }
  }
}
