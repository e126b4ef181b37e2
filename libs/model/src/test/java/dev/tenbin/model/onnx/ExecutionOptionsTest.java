package dev.tenbin.model.onnx;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ai.onnxruntime.OrtException;
import dev.tenbin.core.PreconditionException;
import dev.tenbin.testing.models.TinyModels;
import dev.tenbin.testing.models.TinyOnnxModels;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

class ExecutionOptionsTest {
  private static ExecutionOptions parse(String... args) {
    ExecutionOptions options = new ExecutionOptions();
    new CommandLine(options).parseArgs(args);
    return options;
  }

  @Test
  void theDefaultIsTheCpuWithoutDeviceOrArenaLimit() {
    OnnxModel.RuntimeOptions runtime = parse().toRuntime(3);

    assertThat(runtime).isEqualTo(new OnnxModel.RuntimeOptions(3, false, 0, 0));
    assertThat(runtime.provider()).isEqualTo("CPU");
    assertThat(runtime.device()).isEqualTo("cpu/" + System.getProperty("os.arch"));
  }

  @Test
  void sizesTakeBinarySuffixes() {
    assertThat(ExecutionOptions.parseSize("0")).isZero();
    assertThat(ExecutionOptions.parseSize("1048576")).isEqualTo(1L << 20);
    assertThat(ExecutionOptions.parseSize("512m")).isEqualTo(512L << 20);
    assertThat(ExecutionOptions.parseSize("8G")).isEqualTo(8L << 30);
    assertThat(ExecutionOptions.parseSize("4k")).isEqualTo(4096);
    assertThatThrownBy(() -> ExecutionOptions.parseSize("lots"))
        .hasMessageContaining("--gpu-mem-limit");
    assertThatThrownBy(() -> ExecutionOptions.parseSize("-1g"))
        .hasMessageContaining("--gpu-mem-limit");
    assertThatThrownBy(() -> ExecutionOptions.parseSize("99999999999g"))
        .hasMessageContaining("--gpu-mem-limit");
  }

  @Test
  void anUnknownProviderIsRefusedNamingTheFlag() {
    assertThatThrownBy(() -> parse("--execution-provider", "tpu").toRuntime(1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("--execution-provider must be cpu or cuda");
  }

  @Test
  void deviceAndArenaOptionsWithoutCudaAreRefused() {
    assertThatThrownBy(() -> parse("--device-id", "1").toRuntime(1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("need --execution-provider cuda");
    assertThatThrownBy(() -> parse("--gpu-mem-limit", "2g").toRuntime(1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("need --execution-provider cuda");
    assertThatThrownBy(() -> new OnnxModel.RuntimeOptions(1, true, -1, 0))
        .hasMessageContaining("--device-id");
  }

  @Test
  void cudaIsRefusedWithWhatToDoWhenTheBuildHasNoCudaProvider() {
    Assumptions.assumeFalse(
        OnnxEnvironment.cudaAvailable(), "this build carries the CUDA provider");
    assertThatThrownBy(
            () ->
                parse("--execution-provider", "cuda", "--device-id", "1", "--gpu-mem-limit", "1g")
                    .toRuntime(1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("-Pgpu")
        .hasMessageContaining("docs/gpu.md");
  }

  @Test
  void aCudaSessionThatCannotStartIsAPreconditionWithOnnxRuntimesReason() {
    Assumptions.assumeTrue(CudaDevices.name(0).isEmpty(), "a CUDA device answers nvidia-smi");
    byte[] onnx =
        TinyOnnxModels.embeddingEncoder(
            TinyOnnxModels.table(TinyModels.VOCABULARY, TinyModels.HIDDEN, 42),
            TinyModels.VOCABULARY,
            TinyModels.HIDDEN,
            false);

    // On the CPU build ONNX Runtime has no CUDA provider; on a -Pgpu build without a device or
    // libraries the provider cannot load: either way the deployment's state, named as such.
    assertThatThrownBy(
            () -> new OnnxModel("model tiny", onnx, new OnnxModel.RuntimeOptions(1, true, 0, 0)))
        .isInstanceOfSatisfying(
            PreconditionException.class, e -> assertThat(e.field()).isEqualTo("execution_provider"))
        .hasMessageContaining("model tiny on CUDA device 0")
        .hasMessageContaining("docs/gpu.md")
        .hasCauseInstanceOf(OrtException.class);
  }
}
