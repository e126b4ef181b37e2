package dev.tenbin.model.onnx;

import com.google.protobuf.CodedInputStream;
import com.google.protobuf.WireFormat;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The arithmetic an encoder graph does per token, counted from the serialized {@code ModelProto}
 * without loading it, so that a measured speed can be stated as FLOP/s.
 *
 * <p>Two kinds of matrix product are counted:
 *
 * <ul>
 *   <li><b>Weight products</b>: a {@code MatMul}, {@code Gemm}, {@code MatMulInteger}, {@code
 *       DynamicQuantizeMatMul}, {@code FusedMatMul} or {@code QLinearMatMul} node whose weight
 *       operand is a rank-2 initializer [k, n] does k·n multiply-adds for each token that flows
 *       through it ({@link #weightMultiplyAddsPerToken}). This is the parameter count of the
 *       projections and feed-forward layers; embedding lookups ({@code Gather}) and element-wise
 *       work (bias, normalisation, activation, softmax) are not counted.
 *   <li><b>Activation products</b>: a matrix product neither of whose operands is an initializer is
 *       one of attention's two products (scores = Q·Kᵀ and context = softmax·V); each does {@code
 *       sequence × hidden} multiply-adds per token over all heads ({@link #activationProducts}),
 *       where {@link #hidden} is the most common input width of the weight products.
 * </ul>
 *
 * <p>A token of a sequence of length s then costs {@code 2 · (weights + products · s · hidden)}
 * FLOP ({@link #flopPerToken}); for BERT-style encoders this is the usual {@code 2·N + 4·L·s·d}
 * estimate (N non-embedding parameters, L layers, d hidden size). For int8 graphs the same count is
 * of integer operations.
 *
 * <p>Field numbers are those of {@code onnx.proto}: ModelProto.graph = 7; GraphProto.node = 1,
 * initializer = 5; NodeProto.input = 1, op_type = 4 (tensors are read by {@link
 * OnnxGraphFacts.TensorHeader}).
 *
 * @param weightMultiplyAddsPerToken multiply-adds of the weight products for one token
 * @param activationProducts matrix products between activations (two per attention layer)
 * @param hidden the hidden width the activation products are counted at
 */
public record OnnxGraphCost(long weightMultiplyAddsPerToken, int activationProducts, int hidden) {
  private static final int MODEL_GRAPH = 7;
  private static final int GRAPH_NODE = 1;
  private static final int GRAPH_INITIALIZER = 5;
  private static final int NODE_INPUT = 1;
  private static final int NODE_OP_TYPE = 4;

  /** Matrix products, and which input holds the weight. */
  private static final Map<String, Integer> WEIGHT_INPUT =
      Map.of(
          "MatMul", 1,
          "Gemm", 1,
          "MatMulInteger", 1,
          "DynamicQuantizeMatMul", 1,
          "FusedMatMul", 1,
          "QLinearMatMul", 3);

  private static final Set<String> PRODUCTS = WEIGHT_INPUT.keySet();

  /** FLOP for one token of a sequence of {@code sequenceLength} tokens. */
  public double flopPerToken(int sequenceLength) {
    return 2.0
        * (weightMultiplyAddsPerToken + (double) activationProducts * sequenceLength * hidden);
  }

  /** FLOP for one sequence of {@code length} tokens (attention over that length only). */
  public double flopPerSequence(int length) {
    return length * flopPerToken(length);
  }

  /** The cost of the graph in {@code onnx}; fails on bytes that are not a readable ModelProto. */
  public static OnnxGraphCost read(byte[] onnx) {
    try {
      CodedInputStream in = CodedInputStream.newInstance(onnx);
      in.setSizeLimit(Integer.MAX_VALUE);
      Map<String, long[]> initializers = new HashMap<>();
      List<List<String>> nodes = new ArrayList<>();
      while (true) {
        int tag = in.readTag();
        if (tag == 0) {
          break;
        }
        if (WireFormat.getTagFieldNumber(tag) == MODEL_GRAPH
            && WireFormat.getTagWireType(tag) == WireFormat.WIRETYPE_LENGTH_DELIMITED) {
          int limit = in.pushLimit(in.readRawVarint32());
          readGraph(in, initializers, nodes);
          in.popLimit(limit);
        } else {
          in.skipField(tag);
        }
      }
      return count(initializers, nodes);
    } catch (IOException e) {
      throw new IllegalArgumentException("not a readable ONNX model: " + e.getMessage(), e);
    }
  }

  private static OnnxGraphCost count(Map<String, long[]> initializers, List<List<String>> nodes) {
    long weights = 0;
    int activations = 0;
    Map<Long, Integer> widths = new HashMap<>();
    for (List<String> node : nodes) {
      String op = node.getFirst();
      List<String> inputs = node.subList(1, node.size());
      if (!PRODUCTS.contains(op) || inputs.size() < 2) {
        continue;
      }
      int weightInput = WEIGHT_INPUT.get(op);
      if (weightInput >= inputs.size()) {
        continue;
      }
      long[] weight = initializers.get(inputs.get(weightInput));
      if (weight != null && weight.length == 2) {
        weights += weight[0] * weight[1];
        widths.merge(Math.min(weight[0], weight[1]), 1, Integer::sum);
      } else if (!initializers.containsKey(inputs.get(0))
          && !initializers.containsKey(inputs.get(weightInput))) {
        activations++;
      }
    }
    long hidden =
        widths.entrySet().stream()
            .max(
                Map.Entry.<Long, Integer>comparingByValue()
                    .thenComparing(Map.Entry.comparingByKey()))
            .map(Map.Entry::getKey)
            .orElse(0L);
    return new OnnxGraphCost(weights, activations, (int) hidden);
  }

  private static void readGraph(
      CodedInputStream in, Map<String, long[]> initializers, List<List<String>> nodes)
      throws IOException {
    while (!in.isAtEnd()) {
      int tag = in.readTag();
      int field = WireFormat.getTagFieldNumber(tag);
      boolean delimited = WireFormat.getTagWireType(tag) == WireFormat.WIRETYPE_LENGTH_DELIMITED;
      if (field == GRAPH_NODE && delimited) {
        int limit = in.pushLimit(in.readRawVarint32());
        nodes.add(readNode(in));
        in.popLimit(limit);
      } else if (field == GRAPH_INITIALIZER && delimited) {
        int limit = in.pushLimit(in.readRawVarint32());
        readInitializer(in, initializers);
        in.popLimit(limit);
      } else {
        in.skipField(tag);
      }
    }
  }

  /** The node's op type followed by its inputs. */
  private static List<String> readNode(CodedInputStream in) throws IOException {
    List<String> inputs = new ArrayList<>();
    String op = "";
    while (!in.isAtEnd()) {
      int tag = in.readTag();
      int field = WireFormat.getTagFieldNumber(tag);
      if (field == NODE_INPUT) {
        inputs.add(in.readString());
      } else if (field == NODE_OP_TYPE) {
        op = in.readString();
      } else {
        in.skipField(tag);
      }
    }
    List<String> node = new ArrayList<>(inputs.size() + 1);
    node.add(op);
    node.addAll(inputs);
    return node;
  }

  private static void readInitializer(CodedInputStream in, Map<String, long[]> initializers)
      throws IOException {
    OnnxGraphFacts.TensorHeader tensor = OnnxGraphFacts.TensorHeader.read(in);
    initializers.put(tensor.name(), tensor.dims().stream().mapToLong(Long::longValue).toArray());
  }
}
