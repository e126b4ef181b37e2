package dev.tenbin.encoder.grpc;

import static org.assertj.core.api.Assertions.assertThat;

import ai.djl.huggingface.tokenizers.HuggingFaceTokenizer;
import ai.onnxruntime.OnnxTensor;
import ai.onnxruntime.OrtEnvironment;
import ai.onnxruntime.OrtSession;
import dev.tenbin.client.encoder.EncoderClient;
import dev.tenbin.encoder.config.EncoderServiceConfig;
import dev.tenbin.encoder.server.EncoderServer;
import dev.tenbin.model.onnx.OnnxEnvironment;
import io.grpc.ManagedChannel;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.InputStream;
import java.nio.FloatBuffer;
import java.nio.LongBuffer;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The acceptance check on a real model: all-MiniLM-L6-v2 vectors served over gRPC equal, bit for
 * bit, a direct ONNX Runtime computation of the same batch written here with the raw ORT and DJL
 * APIs (mean over the attention mask in FP32, then L2 normalisation).
 */
class BuiltinModelGrpcParityIT {
  private static final String MODEL = "all-minilm-l6-v2";
  private static final List<String> TEXTS =
      List.of(
          "This is an example sentence",
          "Each sentence is converted",
          "A considerably longer passage, so that the batch is padded: retrieval systems are weighed against "
              + "each other under identical conditions, and then served.",
          "short");

  @TempDir Path tmp;

  @Test
  void vectorsOverGrpcEqualADirectOnnxRuntimeComputationOfTheSameBatchBitForBit() throws Exception {
    EncoderServiceConfig config =
        EncoderServiceConfig.embedded(tmp.resolve("models"), tmp.resolve("cache"));
    float[][] direct = directComputation(config.runtime().intraOpThreads());

    String name = "encoder-parity-" + UUID.randomUUID();
    try (EncoderServer.Embedded server =
        EncoderServer.startInProcess(name, config, new SimpleMeterRegistry())) {
      ManagedChannel channel = InProcessChannelBuilder.forName(name).directExecutor().build();
      try {
        List<float[]> served = EncoderClient.of(channel).encodeDense(MODEL, TEXTS, false, 0);
        assertThat(served).hasSize(TEXTS.size());
        for (int i = 0; i < TEXTS.size(); i++) {
          assertThat(bits(served.get(i))).as("text %d", i).containsExactly(bits(direct[i]));
        }
        assertThat(direct[0][0]).isBetween(0.0677f - 5e-5f, 0.0677f + 5e-5f);
      } finally {
        channel.shutdownNow();
      }
    }
  }

  private static int[] bits(float[] vector) {
    int[] out = new int[vector.length];
    for (int i = 0; i < vector.length; i++) {
      out[i] = Float.floatToRawIntBits(vector[i]);
    }
    return out;
  }

  /** The batch through a fresh ORT session: padded input ids, mask, zero token types. */
  private static float[][] directComputation(int threads) throws Exception {
    byte[] onnx;
    byte[] tokenizerJson;
    ClassLoader loader = BuiltinModelGrpcParityIT.class.getClassLoader();
    try (InputStream model = loader.getResourceAsStream(MODEL + ".onnx");
        InputStream tokenizer = loader.getResourceAsStream(MODEL + "-tokenizer.json")) {
      onnx = model.readAllBytes();
      tokenizerJson = tokenizer.readAllBytes();
    }
    long[][] ids = new long[TEXTS.size()][];
    try (HuggingFaceTokenizer tokenizer =
        HuggingFaceTokenizer.newInstance(
            new java.io.ByteArrayInputStream(tokenizerJson),
            Map.of(
                "addSpecialTokens",
                "true",
                "truncation",
                "true",
                "padding",
                "false",
                "maxLength",
                "512"))) {
      for (int i = 0; i < ids.length; i++) {
        ids[i] = tokenizer.encode(TEXTS.get(i)).getIds();
      }
    }
    int batch = ids.length;
    int length = 0;
    for (long[] row : ids) {
      length = Math.max(length, row.length);
    }
    long[] inputIds = new long[batch * length];
    long[] mask = new long[batch * length];
    for (int b = 0; b < batch; b++) {
      for (int t = 0; t < ids[b].length; t++) {
        inputIds[b * length + t] = ids[b][t];
        mask[b * length + t] = 1;
      }
    }
    // ONNX Runtime's one process-wide environment, taken the way Tenbin takes it: loading the
    // native libraries from Tenbin's cached copy (asked for directly, ONNX Runtime 1.29 unpacks
    // them into a new temporary folder and leaves it behind when this JVM ends).
    OrtEnvironment environment = OnnxEnvironment.get();
    try (OrtSession.SessionOptions options = new OrtSession.SessionOptions()) {
      options.setIntraOpNumThreads(threads);
      options.setOptimizationLevel(OrtSession.SessionOptions.OptLevel.ALL_OPT);
      try (OrtSession session = environment.createSession(onnx, options)) {
        long[] shape = {batch, length};
        Map<String, OnnxTensor> feed = new HashMap<>();
        feed.put(
            "input_ids", OnnxTensor.createTensor(environment, LongBuffer.wrap(inputIds), shape));
        feed.put(
            "attention_mask", OnnxTensor.createTensor(environment, LongBuffer.wrap(mask), shape));
        assertThat(session.getInputNames()).contains("token_type_ids");
        feed.put(
            "token_type_ids",
            OnnxTensor.createTensor(environment, LongBuffer.wrap(new long[batch * length]), shape));
        try (OrtSession.Result result = session.run(feed)) {
          OnnxTensor hidden = (OnnxTensor) result.get(0);
          int width = (int) hidden.getInfo().getShape()[2];
          FloatBuffer values = hidden.getFloatBuffer();
          float[][] out = new float[batch][width];
          for (int b = 0; b < batch; b++) {
            for (int t = 0; t < ids[b].length; t++) {
              for (int h = 0; h < width; h++) {
                out[b][h] += values.get((b * length + t) * width + h);
              }
            }
            double sum = 0;
            for (int h = 0; h < width; h++) {
              out[b][h] /= ids[b].length;
              sum += (double) out[b][h] * out[b][h];
            }
            float norm = (float) Math.sqrt(sum);
            for (int h = 0; h < width; h++) {
              out[b][h] /= norm;
            }
          }
          return out;
        } finally {
          feed.values().forEach(OnnxTensor::close);
        }
      }
    }
  }
}
