package dev.tenbin.encoder.onnx;

import ai.onnxruntime.NodeInfo;
import ai.onnxruntime.OnnxTensor;
import ai.onnxruntime.OrtEnvironment;
import ai.onnxruntime.OrtException;
import ai.onnxruntime.OrtProvider;
import ai.onnxruntime.OrtSession;
import ai.onnxruntime.TensorInfo;
import dev.tenbin.core.Lifetime;
import dev.tenbin.core.OrderedShutdown;
import java.nio.FloatBuffer;
import java.nio.LongBuffer;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;

/**
 * One ONNX Runtime session of a transformer encoder. Feeds {@code input_ids}, {@code
 * attention_mask} and (when the graph declares it) {@code token_type_ids}, padded to the batch's
 * longest input, and returns the first output as FP32 — fp16 outputs are upcast here, so pooling
 * and scores are always computed in FP32.
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
  private final String outputName;
  private final String outputType;
  private final long outputWidth;

  /** Settings of the runtime. */
  public record RuntimeOptions(int intraOpThreads, boolean cuda) {
    public static RuntimeOptions cpu(int threads) {
      return new RuntimeOptions(threads, false);
    }

    /** Fails at start-up, with what to do, when CUDA is asked of a build that lacks it. */
    public void requireAvailable() {
      if (cuda && !OrtEnvironment.getAvailableProviders().contains(OrtProvider.CUDA)) {
        throw new IllegalArgumentException(
            "--execution-provider cuda needs the CUDA build of ONNX Runtime: build with -Pgpu "
                + "(com.microsoft.onnxruntime:onnxruntime_gpu); this build offers "
                + OrtEnvironment.getAvailableProviders());
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
      if (options.cuda()) {
        try {
          sessionOptions.addCUDA(0);
        } catch (OrtException e) {
          throw new IllegalStateException(
              "cannot start the CUDA execution provider (is an NVIDIA GPU with a CUDA 12 driver present?): "
                  + e.getMessage(),
              e);
        }
      }
      this.session = environment.createSession(onnx, sessionOptions);
      this.inputs = session.getInputNames();
      this.outputName = session.getOutputNames().iterator().next();
      NodeInfo info = session.getOutputInfo().get(outputName);
      this.outputType =
          info.getInfo() instanceof TensorInfo tensor ? tensor.type.toString() : "UNKNOWN";
      long[] shape = info.getInfo() instanceof TensorInfo tensor ? tensor.getShape() : new long[0];
      this.outputWidth = shape.length == 0 ? -1 : shape[shape.length - 1];
    } catch (OrtException e) {
      throw new IllegalStateException(
          "cannot create an ONNX Runtime session: " + e.getMessage(), e);
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

  public boolean takesTokenTypeIds() {
    return inputs.contains("token_type_ids");
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
    try (Lifetime.Lease lease = lifetime.acquire()) {
      return runLeased(ids, typeIds);
    }
  }

  private Output runLeased(long[][] ids, long[][] typeIds) {
    int batch = ids.length;
    int length = 0;
    for (long[] row : ids) {
      length = Math.max(length, row.length);
    }
    long[] inputIds = new long[batch * length];
    long[] mask = new long[batch * length];
    for (int b = 0; b < batch; b++) {
      System.arraycopy(ids[b], 0, inputIds, b * length, ids[b].length);
      for (int t = 0; t < ids[b].length; t++) {
        mask[b * length + t] = 1;
      }
    }
    long[] shape = {batch, length};
    Map<String, OnnxTensor> feed = new HashMap<>();
    try {
      feed.put("input_ids", OnnxTensor.createTensor(environment, LongBuffer.wrap(inputIds), shape));
      if (inputs.contains("attention_mask")) {
        feed.put(
            "attention_mask", OnnxTensor.createTensor(environment, LongBuffer.wrap(mask), shape));
      }
      if (inputs.contains("token_type_ids")) {
        long[] types = new long[batch * length];
        if (typeIds != null) {
          for (int b = 0; b < batch; b++) {
            System.arraycopy(typeIds[b], 0, types, b * length, typeIds[b].length);
          }
        }
        feed.put(
            "token_type_ids", OnnxTensor.createTensor(environment, LongBuffer.wrap(types), shape));
      }
      try (OrtSession.Result result = session.run(feed, Set.of(outputName))) {
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
        return new Output(flat, outShape, length);
      }
    } catch (OrtException e) {
      throw new IllegalStateException("ONNX Runtime failed: " + e.getMessage(), e);
    } finally {
      feed.values().forEach(OnnxTensor::close);
    }
  }

  /**
   * A batch output, row-major.
   *
   * @param values FP32 values
   * @param shape the output's shape, e.g. [batch, sequence, hidden]
   * @param paddedLength the sequence length the batch was padded to
   */
  public record Output(float[] values, long[] shape, int paddedLength) {
    public int width() {
      return (int) shape[shape.length - 1];
    }

    /** The vector of one token of one input of a [batch, sequence, width] output. */
    public int offset(int batchIndex, int token) {
      return (batchIndex * paddedLength + token) * width();
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
