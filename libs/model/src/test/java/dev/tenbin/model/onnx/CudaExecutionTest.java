package dev.tenbin.model.onnx;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.tenbin.testing.models.TinyModels;
import dev.tenbin.testing.models.TinyOnnxModels;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Runs where a CUDA device is present (a {@code -Pgpu} build on a machine with an NVIDIA GPU) and
 * is skipped elsewhere: the CUDA provider gives the CPU's numbers within FP32 tolerance, on the
 * chosen device, under an arena limit.
 */
class CudaExecutionTest {
  private static final long[][] IDS = {{1, 4, 5, 2}, {1, 6, 2}};

  @BeforeAll
  static void needsACudaDevice() {
    org.junit.jupiter.api.Assumptions.assumeTrue(
        OnnxEnvironment.cudaAvailable(), "this build has no CUDA provider (build with -Pgpu)");
    org.junit.jupiter.api.Assumptions.assumeTrue(
        CudaDevices.name(0).isPresent(), "no CUDA device answers nvidia-smi");
  }

  @Test
  void cudaGivesTheCpusOutputsWithinFp32Tolerance() {
    byte[] onnx =
        TinyOnnxModels.embeddingEncoder(
            TinyOnnxModels.table(TinyModels.VOCABULARY, TinyModels.HIDDEN, 42),
            TinyModels.VOCABULARY,
            TinyModels.HIDDEN,
            false);
    OnnxModel.RuntimeOptions cuda = new OnnxModel.RuntimeOptions(1, true, 0, 256L << 20);
    try (OnnxModel onCpu = new OnnxModel(onnx, OnnxModel.RuntimeOptions.cpu(1));
        OnnxModel onGpu = new OnnxModel(onnx, cuda)) {
      OnnxModel.Output expected = onCpu.run(IDS);
      OnnxModel.Output actual = onGpu.run(IDS);

      assertThat(actual.shape()).isEqualTo(expected.shape());
      for (int i = 0; i < expected.values().length; i++) {
        assertThat(actual.values()[i]).isCloseTo(expected.values()[i], within(1e-5f));
      }
    }
    assertThat(cuda.device()).startsWith("cuda/").isEqualTo("cuda/" + CudaDevices.name(0).get());
    assertThat(cuda.provider()).isEqualTo("CUDA");
  }
}
