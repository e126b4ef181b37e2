package dev.tenbin.bench;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** {@code bench encoder} takes the execution provider flags every model-hosting command takes. */
class BenchEncoderExecutionTest {
  @Test
  void cudaOnABuildWithoutItIsRefusedBeforeAnyModelLoadsWithWhatToDo() {
    org.junit.jupiter.api.Assumptions.assumeFalse(
        dev.tenbin.model.onnx.OnnxEnvironment.cudaAvailable(),
        "this build carries the CUDA provider");
    CliRunner result =
        CliRunner.run(
            "bench", "encoder", "--model", "no-such-model", "--execution-provider", "cuda");
    assertThat(result.exitCode()).isEqualTo(2);
    assertThat(result.err()).contains("-Pgpu").contains("docs/gpu.md").doesNotContain("Exception");
  }

  @Test
  void anUnknownProviderIsRefusedNamingTheFlag() {
    CliRunner result =
        CliRunner.run(
            "bench", "encoder", "--model", "no-such-model", "--execution-provider", "tpu");
    assertThat(result.exitCode()).isEqualTo(2);
    assertThat(result.err()).contains("--execution-provider must be cpu or cuda, got tpu");
  }

  @Test
  void theHelpListsTheDeviceFlags() {
    CliRunner result = CliRunner.run("bench", "encoder", "--help");
    assertThat(result.exitCode()).isZero();
    assertThat(result.out()).contains("--execution-provider", "--device-id", "--gpu-mem-limit");
  }
}
