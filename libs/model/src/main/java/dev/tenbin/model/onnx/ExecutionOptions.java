package dev.tenbin.model.onnx;

import java.util.Locale;
import picocli.CommandLine.Option;

/**
 * The execution provider options every model-hosting command shares (the encoder and rerank
 * services, and the encoder and reranker embedded in {@code tenbin run/eval}): {@code
 * --execution-provider}, {@code --device-id} and {@code --gpu-mem-limit}, made into {@link
 * OnnxModel.RuntimeOptions} by {@link #toRuntime}. CUDA needs the {@code -Pgpu} build (see {@code
 * docs/gpu.md}); asking for it of another build fails at start with what to do.
 */
public final class ExecutionOptions {
  @Option(
      names = "--execution-provider",
      paramLabel = "PROVIDER",
      defaultValue = "${env:TENBIN_EXECUTION_PROVIDER:-cpu}",
      description =
          "cpu or cuda; cuda needs the build's -Pgpu profile, see docs/gpu.md (env TENBIN_EXECUTION_PROVIDER;"
              + " default ${DEFAULT-VALUE}).")
  String executionProvider = "cpu";

  @Option(
      names = "--device-id",
      paramLabel = "N",
      defaultValue = "${env:TENBIN_CUDA_DEVICE_ID:-0}",
      description =
          "The CUDA device models run on, with --execution-provider cuda (env TENBIN_CUDA_DEVICE_ID;"
              + " default ${DEFAULT-VALUE}).")
  int deviceId;

  @Option(
      names = "--gpu-mem-limit",
      paramLabel = "SIZE",
      defaultValue = "${env:TENBIN_GPU_MEM_LIMIT:-0}",
      description =
          "Limit of the CUDA memory arena of each model, in bytes or with a k, m or g suffix (binary units:"
              + " 8g = 8 GiB); 0 = no limit (env TENBIN_GPU_MEM_LIMIT; default ${DEFAULT-VALUE}).")
  String gpuMemLimit = "0";

  /** The default: the CPU. */
  public static ExecutionOptions cpu() {
    return new ExecutionOptions();
  }

  /**
   * Options as the flags would give them (for front ends that hold them in their own config).
   *
   * @param executionProvider "cpu" or "cuda"
   * @param deviceId the CUDA device
   * @param gpuMemLimit the arena limit, e.g. "8g"; "0" for none
   */
  public static ExecutionOptions of(String executionProvider, int deviceId, String gpuMemLimit) {
    ExecutionOptions options = new ExecutionOptions();
    options.executionProvider = executionProvider;
    options.deviceId = deviceId;
    options.gpuMemLimit = gpuMemLimit;
    return options;
  }

  /**
   * Checks the options now (an {@link IllegalArgumentException} naming the flag, or saying what to
   * do when CUDA is asked of a build without it), before any service starts.
   */
  public void check() {
    toRuntime(1);
  }

  /** The provider as provenance records it: "CPU" or "CUDA". */
  public String provider() {
    return toRuntime(1).provider();
  }

  /** The device as provenance records it, e.g. {@code cpu/amd64}. */
  public String device() {
    return toRuntime(1).device();
  }

  /**
   * The runtime these options ask for with {@code threads} intra-op threads; an invalid value, or
   * CUDA on a build without it, is an {@link IllegalArgumentException} naming the flag.
   */
  public OnnxModel.RuntimeOptions toRuntime(int threads) {
    boolean cuda =
        switch (executionProvider.strip().toLowerCase(Locale.ROOT)) {
          case "cpu" -> false;
          case "cuda" -> true;
          default ->
              throw new IllegalArgumentException(
                  "--execution-provider must be cpu or cuda, got " + executionProvider);
        };
    OnnxModel.RuntimeOptions runtime =
        new OnnxModel.RuntimeOptions(threads, cuda, deviceId, parseSize(gpuMemLimit));
    runtime.requireAvailable();
    return runtime;
  }

  /** Bytes of a size such as {@code 0}, {@code 1048576}, {@code 512m} or {@code 8g}. */
  static long parseSize(String text) {
    String value = text.strip().toLowerCase(Locale.ROOT);
    long unit = 1;
    if (!value.isEmpty()) {
      switch (value.charAt(value.length() - 1)) {
        case 'k' -> unit = 1L << 10;
        case 'm' -> unit = 1L << 20;
        case 'g' -> unit = 1L << 30;
        default -> unit = 1;
      }
    }
    String digits = unit == 1 ? value : value.substring(0, value.length() - 1);
    try {
      long number = Long.parseLong(digits);
      if (number < 0) {
        throw new NumberFormatException("negative");
      }
      return Math.multiplyExact(number, unit);
    } catch (NumberFormatException | ArithmeticException e) {
      throw new IllegalArgumentException(
          "--gpu-mem-limit must be a size in bytes such as 8589934592, 512m or 8g; got '"
              + text
              + "'");
    }
  }
}
