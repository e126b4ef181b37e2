package dev.tenbin.testing.models;

import com.google.protobuf.ByteString;
import com.google.protobuf.CodedOutputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Random;

/**
 * Builds small ONNX models in tests, writing the ONNX protobuf schema (onnx.proto field numbers) by
 * hand: an embedding-table encoder ({@code Gather}) in FP32 or FP16, and an MLM-style model that
 * projects the embeddings onto the vocabulary ({@code MatMul}). Inputs {@code input_ids} and {@code
 * attention_mask} are int64 [batch, sequence]; outputs are [batch, sequence, width].
 */
public final class TinyOnnxModels {
  /** ONNX element type of FP32 tensors. */
  public static final int FLOAT = 1;

  /** ONNX element types of integer tensors. */
  public static final int INT64 = 7;

  public static final int INT32 = 6;

  /** ONNX element type of FP16 tensors. */
  public static final int FLOAT16 = 10;

  /** ONNX element type of bfloat16 tensors. */
  public static final int BFLOAT16 = 16;

  private TinyOnnxModels() {}

  /** A random embedding table [vocabulary, hidden], seeded. */
  public static float[] table(int rows, int columns, long seed) {
    Random random = new Random(seed);
    float[] values = new float[rows * columns];
    for (int i = 0; i < values.length; i++) {
      values[i] = (float) random.nextGaussian();
    }
    return values;
  }

  /** last_hidden_state = embeddings[input_ids]. */
  public static byte[] embeddingEncoder(
      float[] embeddings, int vocabulary, int hidden, boolean fp16) {
    int type = fp16 ? FLOAT16 : FLOAT;
    byte[] graph =
        graph(
            List.of(node("Gather", List.of("embeddings", "input_ids"), "last_hidden_state", 0)),
            List.of(tensor("embeddings", new long[] {vocabulary, hidden}, embeddings, fp16)),
            List.of(valueInfo("input_ids", INT64, 2, 0), valueInfo("attention_mask", INT64, 2, 0)),
            List.of(valueInfo("last_hidden_state", type, 3, hidden)));
    return model(graph);
  }

  /**
   * A batch-dependent encoder: last_hidden_state = embeddings[input_ids] + the mean of every value
   * of the pass (ReduceMean over all axes, padding included), so a text's output moves with the
   * other inputs of its pass and with its padding, as an int8 graph's does when it scales its
   * activations by the range of the whole pass.
   */
  public static byte[] batchDependentEncoder(float[] embeddings, int vocabulary, int hidden) {
    byte[] graph =
        graph(
            List.of(
                node("Gather", List.of("embeddings", "input_ids"), "hidden", 0),
                node("ReduceMean", List.of("hidden"), "pass_mean", 0),
                node("Add", List.of("hidden", "pass_mean"), "last_hidden_state", 0)),
            List.of(tensor("embeddings", new long[] {vocabulary, hidden}, embeddings, false)),
            List.of(valueInfo("input_ids", INT64, 2, 0), valueInfo("attention_mask", INT64, 2, 0)),
            List.of(valueInfo("last_hidden_state", FLOAT, 3, hidden)));
    return model(graph);
  }

  /** logits = embeddings[input_ids] · projection, projection [hidden, vocabulary]. */
  public static byte[] mlmEncoder(
      float[] embeddings, float[] projection, int vocabulary, int hidden) {
    byte[] graph =
        graph(
            List.of(
                node("Gather", List.of("embeddings", "input_ids"), "hidden", 0),
                node("MatMul", List.of("hidden", "projection"), "logits", 0)),
            List.of(
                tensor("embeddings", new long[] {vocabulary, hidden}, embeddings, false),
                tensor("projection", new long[] {hidden, vocabulary}, projection, false)),
            List.of(valueInfo("input_ids", INT64, 2, 0), valueInfo("attention_mask", INT64, 2, 0)),
            List.of(valueInfo("logits", FLOAT, 3, vocabulary)));
    return model(graph);
  }

  /**
   * A causal-LM head stand-in: logits = embeddings[input_ids] · projection, with the token table
   * [vocabulary, hidden] and the projection [hidden, logitsWidth] — a logits width that may be far
   * larger than the tokenizer's vocabulary, as a language model's is. In FP16 every tensor and the
   * output are half precision. {@code declareWidth} false leaves the output's last dimension
   * symbolic.
   */
  public static byte[] languageModelHead(
      float[] embeddings,
      float[] projection,
      int vocabulary,
      int hidden,
      int logitsWidth,
      boolean fp16,
      boolean declareWidth) {
    int type = fp16 ? FLOAT16 : FLOAT;
    byte[] graph =
        graph(
            List.of(
                node("Gather", List.of("embeddings", "input_ids"), "hidden", 0),
                node("MatMul", List.of("hidden", "projection"), "logits", 0)),
            List.of(
                tensor("embeddings", new long[] {vocabulary, hidden}, embeddings, fp16),
                tensor("projection", new long[] {hidden, logitsWidth}, projection, fp16)),
            List.of(valueInfo("input_ids", INT64, 2, 0), valueInfo("attention_mask", INT64, 2, 0)),
            List.of(
                declareWidth
                    ? valueInfo("logits", type, 3, logitsWidth)
                    : valueInfo("logits", type, 3, -1)));
    return model(graph);
  }

  /**
   * A pair classifier (a cross-encoder stand-in): logits = mean over tokens of
   * embeddings[input_ids] · projection, projection [hidden, outputs]; 1 output for a sigmoid head,
   * 2 for a softmax head. In FP16 every tensor and the output are half precision.
   */
  public static byte[] pairClassifier(
      float[] embeddings,
      float[] projection,
      int vocabulary,
      int hidden,
      int outputs,
      boolean fp16) {
    int type = fp16 ? FLOAT16 : FLOAT;
    byte[] graph =
        graph(
            List.of(
                node("Gather", List.of("embeddings", "input_ids"), "hidden", 0),
                reduceMean("hidden", "pooled"),
                node("MatMul", List.of("pooled", "projection"), "logits", 0)),
            List.of(
                tensor("embeddings", new long[] {vocabulary, hidden}, embeddings, fp16),
                tensor("projection", new long[] {hidden, outputs}, projection, fp16)),
            List.of(
                valueInfo("input_ids", INT64, 2, 0),
                valueInfo("attention_mask", INT64, 2, 0),
                valueInfo("token_type_ids", INT64, 2, 0)),
            List.of(valueInfo2("logits", type, outputs)));
    return model(graph);
  }

  /**
   * A decoder-backbone stand-in whose output depends on token, position and attention mask, with
   * inputs {@code input_ids}, {@code attention_mask} and {@code position_ids} (no {@code
   * token_type_ids}), as optimum exports Llama/Qwen3 encoders:
   *
   * <pre>
   * h[t]   = embeddings[input_ids[t]] + positions[position_ids[t]]
   * ctx[t] = Σ_{s ≤ t} mask[s]·h[s]   (causal)   or   Σ_s mask[s]·h[s]   (bi-directional)
   * out[t] = tanh(h[t] + ctx[t]), cast to {@code outputType} (FLOAT, FLOAT16 or BFLOAT16)
   * </pre>
   *
   * A text's vectors are the same in any batch only when its real tokens get positions 0…n-1 and
   * the mask hides the padding: what left padding must get right.
   */
  public static byte[] decoderEncoder(
      float[] embeddings,
      float[] positions,
      int vocabulary,
      int maxPositions,
      int hidden,
      boolean causal,
      int outputType) {
    return decoderEncoder(
        embeddings, positions, vocabulary, maxPositions, hidden, causal, outputType, INT64);
  }

  /**
   * {@link #decoderEncoder(float[], float[], int, int, int, boolean, int)} whose three inputs are
   * of {@code inputType} (INT64 as optimum exports, or INT32 as some exports declare them).
   */
  public static byte[] decoderEncoder(
      float[] embeddings,
      float[] positions,
      int vocabulary,
      int maxPositions,
      int hidden,
      boolean causal,
      int outputType,
      int inputType) {
    String activated = outputType == FLOAT ? "last_hidden_state" : "activated";
    List<byte[]> nodes = new java.util.ArrayList<>();
    nodes.add(node("Gather", List.of("embeddings", "input_ids"), "token_states", 0));
    nodes.add(node("Gather", List.of("positions", "position_ids"), "position_states", 0));
    nodes.add(node("Add", List.of("token_states", "position_states"), "states", 0));
    nodes.add(intNode("Cast", List.of("attention_mask"), "mask", "to", FLOAT));
    nodes.add(node("Unsqueeze", List.of("mask", "axis_two"), "mask3", 0));
    nodes.add(node("Mul", List.of("states", "mask3"), "masked", 0));
    if (causal) {
      nodes.add(node("CumSum", List.of("masked", "axis_one"), "context", 0));
    } else {
      nodes.add(intNode("ReduceSum", List.of("masked", "axes_one"), "context", "keepdims", 1));
    }
    nodes.add(node("Add", List.of("states", "context"), "mixed", 0));
    nodes.add(node("Tanh", List.of("mixed"), activated, 0));
    if (outputType != FLOAT) {
      nodes.add(intNode("Cast", List.of(activated), "last_hidden_state", "to", outputType));
    }
    byte[] graph =
        graph(
            nodes,
            List.of(
                tensor("embeddings", new long[] {vocabulary, hidden}, embeddings, false),
                tensor("positions", new long[] {maxPositions, hidden}, positions, false),
                int64Tensor("axis_two", new long[] {1}, 2),
                int64Tensor("axis_one", new long[] {}, 1),
                int64Tensor("axes_one", new long[] {1}, 1)),
            List.of(
                valueInfo("input_ids", inputType, 2, 0),
                valueInfo("attention_mask", inputType, 2, 0),
                valueInfo("position_ids", inputType, 2, 0)),
            List.of(valueInfo("last_hidden_state", outputType, 3, hidden)));
    return model(graph);
  }

  /**
   * A WordLevel tokenizer.json of a decoder: [PAD]=0 [UNK]=1 {@code <|endoftext|>}=2 then the
   * words, and no post-processor (no special tokens added, as Qwen's tokenizer before its
   * EOS-adding update), so the card's EOS setting decides.
   */
  public static byte[] decoderTokenizer(List<String> words) {
    StringBuilder vocab = new StringBuilder("\"[PAD]\":0,\"[UNK]\":1,\"<|endoftext|>\":2");
    for (int i = 0; i < words.size(); i++) {
      vocab.append(",\"").append(words.get(i)).append("\":").append(i + 3);
    }
    String json =
        """
        {"version":"1.0","truncation":null,"padding":null,
         "added_tokens":[
          {"id":0,"content":"[PAD]","single_word":false,"lstrip":false,"rstrip":false,"normalized":false,"special":true},
          {"id":1,"content":"[UNK]","single_word":false,"lstrip":false,"rstrip":false,"normalized":false,"special":true},
          {"id":2,"content":"<|endoftext|>","single_word":false,"lstrip":false,"rstrip":false,"normalized":false,"special":true}],
         "normalizer":{"type":"Lowercase"},
         "pre_tokenizer":{"type":"Whitespace"},
         "post_processor":null,
         "decoder":null,
         "model":{"type":"WordLevel","vocab":{%s},"unk_token":"[UNK]"}}
        """
            .formatted(vocab);
    return json.getBytes(StandardCharsets.UTF_8);
  }

  private static byte[] intNode(
      String op, List<String> inputs, String output, String attribute, long value) {
    return message(
        out -> {
          for (String input : inputs) {
            out.writeString(1, input);
          }
          out.writeString(2, output);
          out.writeString(3, op + "_" + output);
          out.writeString(4, op);
          out.writeByteArray(
              5,
              message(
                  a -> {
                    a.writeString(1, attribute);
                    a.writeInt64(3, value);
                    a.writeEnum(20, 2);
                  }));
        });
  }

  private static byte[] int64Tensor(String name, long[] dims, long value) {
    ByteBuffer raw = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putLong(value);
    return message(
        out -> {
          for (long dim : dims) {
            out.writeInt64(1, dim);
          }
          out.writeInt32(2, INT64);
          out.writeString(8, name);
          out.writeBytes(9, ByteString.copyFrom(raw.array()));
        });
  }

  private static byte[] reduceMean(String input, String output) {
    return message(
        out -> {
          out.writeString(1, input);
          out.writeString(2, output);
          out.writeString(3, "ReduceMean_" + output);
          out.writeString(4, "ReduceMean");
          out.writeByteArray(
              5,
              message(
                  a -> {
                    a.writeString(1, "axes");
                    a.writeInt64(8, 1);
                    a.writeEnum(20, 7);
                  }));
          out.writeByteArray(
              5,
              message(
                  a -> {
                    a.writeString(1, "keepdims");
                    a.writeInt64(3, 0);
                    a.writeEnum(20, 2);
                  }));
        });
  }

  /** A [batch, width] value info. */
  private static byte[] valueInfo2(String name, int elemType, int width) {
    byte[] shape =
        message(
            out -> {
              out.writeByteArray(1, message(d -> d.writeString(2, "batch")));
              out.writeByteArray(1, message(d -> d.writeInt64(1, width)));
            });
    byte[] tensorType =
        message(
            out -> {
              out.writeInt32(1, elemType);
              out.writeByteArray(2, shape);
            });
    byte[] type = message(out -> out.writeByteArray(1, tensorType));
    return message(
        out -> {
          out.writeString(1, name);
          out.writeByteArray(2, type);
        });
  }

  /**
   * A WordLevel tokenizer.json over {@code words} with [PAD]=0 [UNK]=1 [CLS]=2 [SEP]=3, then the
   * words.
   */
  public static byte[] wordLevelTokenizer(List<String> words) {
    StringBuilder vocab = new StringBuilder("\"[PAD]\":0,\"[UNK]\":1,\"[CLS]\":2,\"[SEP]\":3");
    for (int i = 0; i < words.size(); i++) {
      vocab.append(",\"").append(words.get(i)).append("\":").append(i + 4);
    }
    String json =
        """
        {"version":"1.0","truncation":null,"padding":null,
         "added_tokens":[
          {"id":0,"content":"[PAD]","single_word":false,"lstrip":false,"rstrip":false,"normalized":false,"special":true},
          {"id":1,"content":"[UNK]","single_word":false,"lstrip":false,"rstrip":false,"normalized":false,"special":true},
          {"id":2,"content":"[CLS]","single_word":false,"lstrip":false,"rstrip":false,"normalized":false,"special":true},
          {"id":3,"content":"[SEP]","single_word":false,"lstrip":false,"rstrip":false,"normalized":false,"special":true}],
         "normalizer":{"type":"Lowercase"},
         "pre_tokenizer":{"type":"Whitespace"},
         "post_processor":{"type":"TemplateProcessing",
           "single":[{"SpecialToken":{"id":"[CLS]","type_id":0}},{"Sequence":{"id":"A","type_id":0}},{"SpecialToken":{"id":"[SEP]","type_id":0}}],
           "pair":[{"SpecialToken":{"id":"[CLS]","type_id":0}},{"Sequence":{"id":"A","type_id":0}},{"SpecialToken":{"id":"[SEP]","type_id":0}},{"Sequence":{"id":"B","type_id":1}},{"SpecialToken":{"id":"[SEP]","type_id":1}}],
           "special_tokens":{"[CLS]":{"id":"[CLS]","ids":[2],"tokens":["[CLS]"]},"[SEP]":{"id":"[SEP]","ids":[3],"tokens":["[SEP]"]}}},
         "decoder":null,
         "model":{"type":"WordLevel","vocab":{%s},"unk_token":"[UNK]"}}
        """
            .formatted(vocab);
    return json.getBytes(StandardCharsets.UTF_8);
  }

  // --- ONNX protobuf, by field number -------------------------------------------------------

  private static byte[] model(byte[] graph) {
    return message(
        out -> {
          out.writeInt64(1, 8); // ir_version
          out.writeByteArray(
              8,
              message(
                  o -> {
                    o.writeString(1, "");
                    o.writeInt64(2, 17);
                  })); // opset_import
          out.writeString(2, "tenbin-tests"); // producer_name
          out.writeByteArray(7, graph); // graph
        });
  }

  private static byte[] graph(
      List<byte[]> nodes, List<byte[]> initializers, List<byte[]> inputs, List<byte[]> outputs) {
    return message(
        out -> {
          for (byte[] node : nodes) {
            out.writeByteArray(1, node);
          }
          out.writeString(2, "tiny");
          for (byte[] initializer : initializers) {
            out.writeByteArray(5, initializer);
          }
          for (byte[] input : inputs) {
            out.writeByteArray(11, input);
          }
          for (byte[] output : outputs) {
            out.writeByteArray(12, output);
          }
        });
  }

  private static byte[] node(String op, List<String> inputs, String output, int axis) {
    return message(
        out -> {
          for (String input : inputs) {
            out.writeString(1, input);
          }
          out.writeString(2, output);
          out.writeString(3, op + "_" + output);
          out.writeString(4, op);
          if (op.equals("Gather")) {
            out.writeByteArray(
                5,
                message(
                    a -> {
                      a.writeString(1, "axis");
                      a.writeInt64(3, axis);
                      a.writeEnum(20, 2);
                    }));
          }
        });
  }

  private static byte[] tensor(String name, long[] dims, float[] values, boolean fp16) {
    ByteBuffer raw =
        ByteBuffer.allocate(values.length * (fp16 ? 2 : 4)).order(ByteOrder.LITTLE_ENDIAN);
    for (float v : values) {
      if (fp16) {
        raw.putShort(Float.floatToFloat16(v));
      } else {
        raw.putFloat(v);
      }
    }
    return message(
        out -> {
          for (long dim : dims) {
            out.writeInt64(1, dim);
          }
          out.writeInt32(2, fp16 ? FLOAT16 : FLOAT);
          out.writeString(8, name);
          out.writeBytes(9, ByteString.copyFrom(raw.array()));
        });
  }

  /** A tensor value info with symbolic batch/sequence dims and an optional fixed last dim. */
  private static byte[] valueInfo(String name, int elemType, int rank, int lastDim) {
    byte[] shape =
        message(
            out -> {
              out.writeByteArray(1, message(d -> d.writeString(2, "batch")));
              out.writeByteArray(1, message(d -> d.writeString(2, "sequence")));
              if (rank == 3 && lastDim >= 0) {
                out.writeByteArray(1, message(d -> d.writeInt64(1, lastDim)));
              } else if (rank == 3) {
                out.writeByteArray(1, message(d -> d.writeString(2, "width")));
              }
            });
    byte[] tensorType =
        message(
            out -> {
              out.writeInt32(1, elemType);
              out.writeByteArray(2, shape);
            });
    byte[] type = message(out -> out.writeByteArray(1, tensorType));
    return message(
        out -> {
          out.writeString(1, name);
          out.writeByteArray(2, type);
        });
  }

  private interface Writer {
    void write(CodedOutputStream out) throws IOException;
  }

  private static byte[] message(Writer writer) {
    try {
      ByteArrayOutputStream bytes = new ByteArrayOutputStream();
      CodedOutputStream out = CodedOutputStream.newInstance(bytes);
      writer.write(out);
      out.flush();
      return bytes.toByteArray();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
