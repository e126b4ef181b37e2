package dev.tenbin.model.onnx;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * What the machine says of its NVIDIA GPUs, read once per device through {@code nvidia-smi} (ONNX
 * Runtime's Java binding does not name the device it runs on). Used for provenance (the GPU's name
 * is part of the device a result was computed on) and by tests that run only where a GPU is.
 */
public final class CudaDevices {
  private static final Map<Integer, Optional<String>> NAMES = new ConcurrentHashMap<>();

  private CudaDevices() {}

  /**
   * The name of CUDA device {@code index} ("NVIDIA H100 80GB HBM3"), or empty when there is no such
   * device or {@code nvidia-smi} cannot be run.
   */
  public static Optional<String> name(int index) {
    return NAMES.computeIfAbsent(index, CudaDevices::query);
  }

  private static Optional<String> query(int index) {
    Path output = null;
    Process process = null;
    try {
      output = Files.createTempFile("tenbin-nvidia-smi-", ".txt");
      process =
          new ProcessBuilder(
                  "nvidia-smi", "--query-gpu=name", "--format=csv,noheader", "-i", "" + index)
              .redirectErrorStream(true)
              .redirectOutput(output.toFile())
              .start();
      if (!process.waitFor(10, TimeUnit.SECONDS)) {
        return Optional.empty();
      }
      String name = Files.readString(output, StandardCharsets.UTF_8).strip();
      return process.exitValue() == 0 && !name.isEmpty() && !name.contains("\n")
          ? Optional.of(name)
          : Optional.empty();
    } catch (IOException noNvidiaSmi) {
      return Optional.empty();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return Optional.empty();
    } finally {
      if (process != null) {
        process.destroyForcibly();
      }
      if (output != null) {
        try {
          Files.deleteIfExists(output);
        } catch (IOException e) {
          // A few bytes in the temporary folder; nothing to do.
        }
      }
    }
  }
}
