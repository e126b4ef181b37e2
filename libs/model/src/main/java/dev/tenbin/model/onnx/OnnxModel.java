package dev.tenbin.model.onnx;

import ai.onnxruntime.NodeInfo;
import ai.onnxruntime.OnnxJavaType;
import ai.onnxruntime.OnnxTensor;
import ai.onnxruntime.OrtEnvironment;
import ai.onnxruntime.OrtException;
import ai.onnxruntime.OrtSession;
import ai.onnxruntime.TensorInfo;
import ai.onnxruntime.providers.OrtCUDAProviderOptions;
import dev.tenbin.core.Lifetime;
import dev.tenbin.core.OrderedShutdown;
import dev.tenbin.core.PreconditionException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.FloatBuffer;
import java.nio.IntBuffer;
import java.nio.LongBuffer;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/**
 * One ONNX Runtime session of a transformer encoder. Feeds {@code input_ids} and, when the graph
 * declares them, {@code attention_mask}, {@code token_type_ids} and {@code position_ids}, padded to
 * the batch's longest input on the right or (decoder embedders) on the left, and returns the first
 * output as FP32 — fp16 and bf16 outputs are upcast here, so pooling and scores are always computed
 * in FP32.
 *
 * <p>Position ids count real tokens, as Hugging Face does for a padded batch ({@code
 * attention_mask.cumsum(-1) - 1}, padded slots 1): under either padding side a text's tokens get
 * positions 0…n-1, so its vector does not depend on what it was batched with.
 *
 * <p>Every run holds a lease on the session's {@link Lifetime}: {@link #close()} refuses new runs
 * (UNAVAILABLE), waits for the running ones and only then frees the session. Each session is also
 * registered with the process's {@link OrderedShutdown}, so the JVM's exit waits for its runs.
 */
public final class OnnxModel implements AutoCloseable {
  private final OrtEnvironment environment;
  private final OrtSession session;
  private final Lifetime lifetime;
  private final OrderedShutdown.Registration shutdown;
  private final Set<String> inputs;
  private final Set<String> int32Inputs = new HashSet<>();
  private final String outputName;
  private final String outputType;
  private final long outputWidth;
  private final int outputRank;

  /**
   * Settings of the runtime: threads, the execution provider and, for CUDA, the device and the
   * memory arena's limit.
   *
   * @param intraOpThreads ONNX Runtime intra-op threads per session (0: ONNX Runtime's default)
   * @param cuda whether sessions run on the CUDA execution provider (needs the {@code -Pgpu} build)
   * @param deviceId the CUDA device sessions run on (0 for the CPU)
   * @param gpuMemLimitBytes the CUDA memory arena's limit in bytes; 0 for no limit (0 for the CPU)
   */
  public record RuntimeOptions(
      int intraOpThreads, boolean cuda, int deviceId, long gpuMemLimitBytes) {
    public RuntimeOptions {
      if (deviceId < 0) {
        throw new IllegalArgumentException("--device-id must not be negative, got " + deviceId);
      }
      if (gpuMemLimitBytes < 0) {
        throw new IllegalArgumentException(
            "--gpu-mem-limit must not be negative, got " + gpuMemLimitBytes);
      }
      if (!cuda && (deviceId != 0 || gpuMemLimitBytes != 0)) {
        throw new IllegalArgumentException(
            "--device-id and --gpu-mem-limit need --execution-provider cuda");
      }
    }

    /** The given threads on the given provider, device 0, no arena limit. */
    public RuntimeOptions(int intraOpThreads, boolean cuda) {
      this(intraOpThreads, cuda, 0, 0);
    }

    public static RuntimeOptions cpu(int threads) {
      return new RuntimeOptions(threads, false);
    }

    /** These settings with another thread count. */
    public RuntimeOptions withThreads(int threads) {
      return new RuntimeOptions(threads, cuda, deviceId, gpuMemLimitBytes);
    }

    /** The execution provider's name as provenance records it: "CPU" or "CUDA". */
    public String provider() {
      return cuda ? "CUDA" : "CPU";
    }

    /**
     * The device as provenance records it, a part of fingerprints and cache keys: {@code
     * cpu/<architecture>} (e.g. {@code cpu/amd64}), or {@code cuda/<GPU name>} (e.g. {@code
     * cuda/NVIDIA H100 80GB HBM3}; {@code cuda} alone when the name cannot be read). Two devices of
     * the same model give the same numbers, so the device's index is not part of it; finer
     * differences (CPU instruction sets) show in the probe checksums stored with results.
     */
    public String device() {
      if (!cuda) {
        return "cpu/" + System.getProperty("os.arch", "unknown");
      }
      return CudaDevices.name(deviceId).map(name -> "cuda/" + name).orElse("cuda");
    }

    /** Fails at start-up, with what to do, when CUDA is asked of a build that lacks it. */
    public void requireAvailable() {
      if (cuda && !OnnxEnvironment.cudaAvailable()) {
        throw new IllegalArgumentException(
            "--execution-provider cuda needs the CUDA build of ONNX Runtime: build with -Pgpu "
                + "(com.microsoft.onnxruntime:onnxruntime_gpu, see docs/gpu.md); this build offers "
                + OnnxEnvironment.providers());
      }
    }
  }

  public OnnxModel(byte[] onnx, RuntimeOptions options) {
    this("an ONNX model", onnx, options);
  }

  /**
   * A session over the graph in {@code onnx}.
   *
   * @param name what the model is, for messages ("model bge-small-en-v1.5")
   */
  public OnnxModel(String name, byte[] onnx, RuntimeOptions options) {
    this.environment = OnnxEnvironment.get();
    try (OrtSession.SessionOptions sessionOptions = new OrtSession.SessionOptions()) {
      if (options.intraOpThreads() > 0) {
        sessionOptions.setIntraOpNumThreads(options.intraOpThreads());
      }
      sessionOptions.setOptimizationLevel(OrtSession.SessionOptions.OptLevel.ALL_OPT);
      // Intra-op threads block between runs instead of spinning: a spinning thread keeps a core
      // from the gRPC, batcher and handler threads that hand the next run its work. On the 2-core
      // development machine this made one query's encoding 1.6x faster and the rerank service's
      // gRPC path 0.69 -> 0.76 of in-process, batch throughput unchanged (BENCHMARKS.md, "ONNX
      // Runtime's spinning threads"). Scheduling only: the numbers a run gives do not change.
      sessionOptions.addConfigEntry("session.intra_op.allow_spinning", "0");
      try (OrtCUDAProviderOptions cuda = options.cuda() ? cudaOptions(options) : null) {
        if (cuda != null) {
          sessionOptions.addCUDA(cuda);
        }
        this.session = environment.createSession(onnx, sessionOptions);
      }
      this.inputs = session.getInputNames();
      for (Map.Entry<String, NodeInfo> input : session.getInputInfo().entrySet()) {
        if (input.getValue().getInfo() instanceof TensorInfo tensor
            && tensor.type == OnnxJavaType.INT32) {
          int32Inputs.add(input.getKey());
        }
      }
      this.outputName = session.getOutputNames().iterator().next();
      NodeInfo info = session.getOutputInfo().get(outputName);
      this.outputType =
          info.getInfo() instanceof TensorInfo tensor ? tensor.type.toString() : "UNKNOWN";
      long[] shape = info.getInfo() instanceof TensorInfo tensor ? tensor.getShape() : new long[0];
      this.outputWidth = shape.length == 0 ? -1 : shape[shape.length - 1];
      this.outputRank = shape.length;
    } catch (OrtException e) {
      if (options.cuda()) {
        // A missing CUDA library, driver or device is the deployment's state, not a server bug:
        // the caller sees ONNX Runtime's own reason (e.g. "libcublasLt.so.12: cannot open shared
        // object file") instead of an internal error with an id.
        PreconditionException unusable =
            new PreconditionException(
                "execution_provider",
                "cannot create an ONNX Runtime session for "
                    + name
                    + " on CUDA device "
                    + options.deviceId()
                    + " (the CUDA 12 and cuDNN 9 libraries and an NVIDIA driver must be present,"
                    + " see docs/gpu.md): "
                    + e.getMessage());
        unusable.initCause(e);
        throw unusable;
      }
      // A graph ONNX Runtime cannot read (damaged, cut short, an unsupported operator set) is the
      // state of the model's files, not a server bug: the caller sees the model and ONNX
      // Runtime's reason instead of an internal error with an id.
      PreconditionException unloadable =
          new PreconditionException(
              "model_id",
              "cannot load " + name + ": ONNX Runtime refuses its graph: " + e.getMessage());
      unloadable.initCause(e);
      throw unloadable;
    }
    this.lifetime = new Lifetime(name, this::free);
    OrderedShutdown.Registration registration;
    try {
      registration = OrderedShutdown.register(OrderedShutdown.Stage.NATIVE, name, this);
    } catch (RuntimeException shuttingDown) {
      free();
      throw shuttingDown;
    }
    this.shutdown = registration;
  }

  /**
   * The CUDA provider's options: the device and, when limited, the memory arena's size. ONNX
   * Runtime copies them into the session, so they are closed once the session is created.
   */
  private static OrtCUDAProviderOptions cudaOptions(RuntimeOptions options) throws OrtException {
    OrtCUDAProviderOptions cuda = new OrtCUDAProviderOptions(options.deviceId());
    try {
      if (options.gpuMemLimitBytes() > 0) {
        cuda.add("gpu_mem_limit", Long.toString(options.gpuMemLimitBytes()));
      }
      return cuda;
    } catch (OrtException | RuntimeException e) {
      cuda.close();
      throw e;
    }
  }

  /** The element type of the model's output, e.g. FLOAT or FLOAT16. */
  public String outputType() {
    return outputType;
  }

  /**
   * The last dimension of the output as the graph declares it, or -1 when it is symbolic (known
   * only after a run).
   */
  public long declaredOutputWidth() {
    return outputWidth;
  }

  /** The rank of the output as the graph declares it (0 when it declares none). */
  public int declaredOutputRank() {
    return outputRank;
  }

  public boolean takesTokenTypeIds() {
    return inputs.contains("token_type_ids");
  }

  /** Whether the graph declares a {@code position_ids} input (decoder exports do). */
  public boolean takesPositionIds() {
    return inputs.contains("position_ids");
  }

  /**
   * Runs a batch and returns the output as [batch][sequence * width] plus its shape.
   *
   * @param ids unpadded token ids
   */
  public Output run(long[][] ids) {
    return run(ids, null);
  }

  /**
   * Runs a batch with explicit token type ids (sentence pairs for cross-encoders); {@code typeIds}
   * may be null for all zeros.
   */
  public Output run(long[][] ids, long[][] typeIds) {
    return run(ids, typeIds, false);
  }

  /**
   * Runs a batch padded on the left ({@code leftPadding}) or on the right; {@code typeIds} may be
   * null for all zeros.
   */
  public Output run(long[][] ids, long[][] typeIds, boolean leftPadding) {
    try (Lifetime.Lease lease = lifetime.acquire()) {
      return runLeased(ids, typeIds, leftPadding);
    }
  }

  /** The padding id: 0 (pad slots are masked out, so the id only has to be in the vocabulary). */
  private static final long PAD_ID = 0;

  /** What HF puts in the position id of a padded slot ({@code masked_fill(mask == 0, 1)}). */
  private static final long PAD_POSITION = 1;

  /** The padded inputs of one batch: the tensors fed, the padded length and each input's start. */
  private record Feed(Map<String, OnnxTensor> tensors, int length, int[] starts)
      implements AutoCloseable {
    @Override
    public void close() {
      tensors.values().forEach(OnnxTensor::close);
    }
  }

  private Feed feed(long[][] ids, long[][] typeIds, boolean leftPadding) throws OrtException {
    int batch = ids.length;
    int length = 0;
    for (long[] row : ids) {
      length = Math.max(length, row.length);
    }
    long[] inputIds = new long[batch * length];
    long[] mask = new long[batch * length];
    long[] positions = new long[batch * length];
    int[] starts = new int[batch];
    Arrays.fill(inputIds, PAD_ID);
    Arrays.fill(positions, PAD_POSITION);
    for (int b = 0; b < batch; b++) {
      starts[b] = leftPadding ? length - ids[b].length : 0;
      int from = b * length + starts[b];
      System.arraycopy(ids[b], 0, inputIds, from, ids[b].length);
      for (int t = 0; t < ids[b].length; t++) {
        mask[from + t] = 1;
        positions[from + t] = t;
      }
    }
    long[] shape = {batch, length};
    Feed feed = new Feed(new HashMap<>(), length, starts);
    try {
      feed.tensors().put("input_ids", integers("input_ids", inputIds, shape));
      if (inputs.contains("attention_mask")) {
        feed.tensors().put("attention_mask", integers("attention_mask", mask, shape));
      }
      if (inputs.contains("token_type_ids")) {
        long[] types = new long[batch * length];
        if (typeIds != null) {
          for (int b = 0; b < batch; b++) {
            System.arraycopy(typeIds[b], 0, types, b * length + starts[b], typeIds[b].length);
          }
        }
        feed.tensors().put("token_type_ids", integers("token_type_ids", types, shape));
      }
      if (inputs.contains("position_ids")) {
        feed.tensors().put("position_ids", integers("position_ids", positions, shape));
      }
      return feed;
    } catch (OrtException | RuntimeException e) {
      feed.close();
      throw e;
    }
  }

  private Output runLeased(long[][] ids, long[][] typeIds, boolean leftPadding) {
    try (Feed feed = feed(ids, typeIds, leftPadding);
        OrtSession.Result result = session.run(feed.tensors(), Set.of(outputName))) {
      OnnxTensor tensor = (OnnxTensor) result.get(0);
      long[] outShape = tensor.getInfo().getShape();
      FloatBuffer values = tensor.getFloatBuffer();
      if (values == null) {
        throw new IllegalStateException(
            "model output "
                + outputName
                + " of type "
                + tensor.getInfo().type
                + " is not floating point");
      }
      float[] flat = new float[values.remaining()];
      values.get(flat);
      return new Output(flat, outShape, feed.length(), feed.starts());
    } catch (OrtException e) {
      throw new IllegalStateException("ONNX Runtime failed: " + e.getMessage(), e);
    }
  }

  /** The largest output {@link #lastTokenColumns} lets ONNX Runtime write: one ByteBuffer. */
  public static final long MAX_PINNED_OUTPUT_BYTES = Integer.MAX_VALUE;

  /** Bytes per value of the output's dtype: 4 for FLOAT, 2 for FLOAT16 and BFLOAT16. */
  public int outputElementBytes() {
    return switch (outputType) {
      case "FLOAT" -> 4;
      case "FLOAT16", "BFLOAT16" -> 2;
      default ->
          throw new IllegalStateException(
              "model output " + outputName + " of type " + outputType + " is not floating point");
    };
  }

  /**
   * The output's last dimension (a language model's vocabulary): as the graph declares it, or, when
   * that is symbolic, from one probe run over a single token (its output is one row).
   */
  public long outputWidth() {
    long width = probedWidth;
    if (width > 0) {
      return width;
    }
    width = outputWidth > 0 ? outputWidth : run(new long[][] {{PAD_ID}}).width();
    probedWidth = width;
    return width;
  }

  private volatile long probedWidth;

  /**
   * For each input, the output's values in {@code columns} at the input's last real token — the
   * "yes" and "no" logits of an LLM reranker — without the whole output on the Java heap. ONNX
   * Runtime writes the output, in the model's own dtype, into a direct (off-heap) buffer this call
   * allocates (the memory the graph's output needs in any case; freed when collected); only {@code
   * batch × columns.length} values are read from it and converted to FP32 (FLOAT16 and BFLOAT16
   * exactly). {@link #run} would instead copy all {@code batch × sequence × width} values into an
   * FP32 array.
   *
   * <p>The output is [batch, sequence, width], or [batch, width] for a graph that already keeps
   * only the last position. Inputs are padded on the right.
   *
   * @param ids unpadded token ids
   * @param columns the output columns to read (token ids of a vocabulary-wide output)
   * @return per input, the values of {@code columns} in order
   */
  public float[][] lastTokenColumns(long[][] ids, long[] columns) {
    try (Lifetime.Lease lease = lifetime.acquire()) {
      return lastTokenColumnsLeased(ids, columns);
    }
  }

  private float[][] lastTokenColumnsLeased(long[][] ids, long[] columns) {
    long width = outputWidth();
    for (long column : columns) {
      if (column < 0 || column >= width) {
        throw new IllegalArgumentException(
            "column " + column + " is outside the model's output width " + width);
      }
    }
    if (outputRank != 2 && outputRank != 3) {
      throw new IllegalStateException(
          "model output "
              + outputName
              + " has rank "
              + outputRank
              + "; the last position's values need [batch, sequence, width] or [batch, width]");
    }
    int elementBytes = outputElementBytes();
    int batch = ids.length;
    try (Feed feed = feed(ids, null, false)) {
      long[] shape =
          outputRank == 3 ? new long[] {batch, feed.length(), width} : new long[] {batch, width};
      long bytes = elementBytes;
      for (long dimension : shape) {
        bytes = Math.multiplyExact(bytes, dimension);
      }
      if (bytes > MAX_PINNED_OUTPUT_BYTES) {
        throw new IllegalArgumentException(
            "a pass of "
                + batch
                + " inputs of up to "
                + feed.length()
                + " tokens gives "
                + bytes
                + " bytes of output, more than "
                + MAX_PINNED_OUTPUT_BYTES
                + "; score fewer tokens per pass");
      }
      ByteBuffer buffer = ByteBuffer.allocateDirect((int) bytes).order(ByteOrder.nativeOrder());
      OnnxJavaType type = OnnxJavaType.valueOf(outputType);
      float[][] picked = new float[batch][columns.length];
      try (OnnxTensor output = OnnxTensor.createTensor(environment, buffer, shape, type);
          OrtSession.Result result =
              session.run(feed.tensors(), Set.of(), Map.of(outputName, output))) {
        for (int b = 0; b < batch; b++) {
          long row =
              outputRank == 3 ? ((long) b * feed.length() + ids[b].length - 1) * width : b * width;
          for (int c = 0; c < columns.length; c++) {
            int at = Math.toIntExact((row + columns[c]) * elementBytes);
            picked[b][c] =
                switch (elementBytes) {
                  case 4 -> buffer.getFloat(at);
                  default ->
                      type == OnnxJavaType.BFLOAT16
                          ? Float.intBitsToFloat((buffer.getShort(at) & 0xffff) << 16)
                          : Float.float16ToFloat(buffer.getShort(at));
                };
          }
        }
      }
      return picked;
    } catch (OrtException e) {
      throw new IllegalStateException("ONNX Runtime failed: " + e.getMessage(), e);
    }
  }

  /** An integer input as the graph declares it: int32 where it says so, int64 otherwise. */
  private OnnxTensor integers(String name, long[] values, long[] shape) throws OrtException {
    if (int32Inputs.contains(name)) {
      int[] narrow = new int[values.length];
      for (int i = 0; i < values.length; i++) {
        narrow[i] = Math.toIntExact(values[i]);
      }
      return OnnxTensor.createTensor(environment, IntBuffer.wrap(narrow), shape);
    }
    return OnnxTensor.createTensor(environment, LongBuffer.wrap(values), shape);
  }

  /**
   * A batch output, row-major.
   *
   * @param values FP32 values
   * @param shape the output's shape, e.g. [batch, sequence, hidden]
   * @param paddedLength the sequence length the batch was padded to
   * @param starts per input, the slot of its first real token (0 under right padding, the padding
   *     count under left padding); null means all 0
   */
  public record Output(float[] values, long[] shape, int paddedLength, int[] starts) {
    /** An output of a right-padded batch. */
    public Output(float[] values, long[] shape, int paddedLength) {
      this(values, shape, paddedLength, null);
    }

    public int width() {
      return (int) shape[shape.length - 1];
    }

    /**
     * The vector of one real token of one input of a [batch, sequence, width] output: {@code token}
     * counts the input's own tokens (0 = its first), whichever side the padding is on.
     */
    public int offset(int batchIndex, int token) {
      int start = starts == null ? 0 : starts[batchIndex];
      return (batchIndex * paddedLength + start + token) * width();
    }
  }

  /** Whether the session is closing or closed (new runs are refused). */
  public boolean isClosing() {
    return lifetime.isClosing();
  }

  /** Refuses new runs, waits for the running ones, then frees the session. */
  @Override
  public void close() {
    lifetime.close();
    shutdown.close();
  }

  private void free() {
    try {
      session.close();
    } catch (OrtException e) {
      throw new IllegalStateException("cannot free the ONNX Runtime session: " + e.getMessage(), e);
    }
  }
}
