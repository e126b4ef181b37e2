package dev.tenbin.model.onnx;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.CodedOutputStream;
import dev.tenbin.testing.models.TinyOnnxModels;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class OnnxGraphCostTest {
  private final List<byte[]> nodes = new ArrayList<>();
  private final List<byte[]> initializers = new ArrayList<>();

  private void node(String op, String... inputs) throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    CodedOutputStream out = CodedOutputStream.newInstance(bytes);
    for (String input : inputs) {
      out.writeString(1, input);
    }
    out.writeString(2, op + "_out_" + nodes.size());
    out.writeString(4, op);
    out.flush();
    nodes.add(bytes.toByteArray());
  }

  private void initializer(String name, long... dims) throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    CodedOutputStream out = CodedOutputStream.newInstance(bytes);
    for (long dim : dims) {
      out.writeInt64(1, dim);
    }
    out.writeInt32(2, 1);
    out.writeString(8, name);
    out.flush();
    initializers.add(bytes.toByteArray());
  }

  private byte[] model() throws IOException {
    ByteArrayOutputStream graph = new ByteArrayOutputStream();
    CodedOutputStream g = CodedOutputStream.newInstance(graph);
    for (byte[] node : nodes) {
      g.writeByteArray(1, node);
    }
    g.writeString(2, "g");
    for (byte[] initializer : initializers) {
      g.writeByteArray(5, initializer);
    }
    g.flush();
    ByteArrayOutputStream model = new ByteArrayOutputStream();
    CodedOutputStream m = CodedOutputStream.newInstance(model);
    m.writeInt64(1, 8);
    m.writeByteArray(7, graph.toByteArray());
    m.flush();
    return model.toByteArray();
  }

  /**
   * One BERT-style layer of width 8 and feed-forward width 32: Q, K, V and output projections of
   * 8×8, two feed-forward matrices 8×32 and 32×8, and the two attention products.
   */
  @Test
  void anEncoderLayerCostsItsProjectionsPlusTwoAttentionProductsPerToken() throws IOException {
    initializer("embeddings", 100, 8);
    for (String w : List.of("wq", "wk", "wv", "wo")) {
      initializer(w, 8, 8);
    }
    initializer("w1", 8, 32);
    initializer("w2", 32, 8);
    initializer("bias", 8);
    node("Gather", "embeddings", "input_ids");
    node("MatMul", "h", "wq");
    node("MatMul", "h", "wk");
    node("MatMul", "h", "wv");
    node("Add", "q", "bias");
    node("Transpose", "k");
    node("MatMul", "q", "kt");
    node("Softmax", "scores");
    node("MatMul", "p", "v");
    node("MatMul", "context", "wo");
    node("MatMul", "x", "w1");
    node("Gelu", "f");
    node("MatMul", "g", "w2");

    OnnxGraphCost cost = OnnxGraphCost.read(model());

    assertThat(cost.weightMultiplyAddsPerToken()).isEqualTo(4 * 64 + 2 * 256);
    assertThat(cost.activationProducts()).isEqualTo(2);
    assertThat(cost.hidden()).isEqualTo(8);
    // 2 · (768 + 2 · 10 · 8): the usual 2N + 4·L·s·d with N = 768, L = 1, s = 10, d = 8.
    assertThat(cost.flopPerToken(10)).isEqualTo(1856.0);
    assertThat(cost.flopPerSequence(10)).isEqualTo(18_560.0);
  }

  @Test
  void quantizedProductsCountTheirWeightOperand() throws IOException {
    initializer("w_int8", 16, 4);
    initializer("w_qlinear", 4, 4);
    initializer("scale");
    node("MatMulInteger", "a", "w_int8", "a_zero", "w_zero");
    node("QLinearMatMul", "a", "scale", "zero", "w_qlinear", "scale", "zero", "scale", "zero");
    node("DynamicQuantizeMatMul", "a", "w_int8");

    OnnxGraphCost cost = OnnxGraphCost.read(model());

    assertThat(cost.weightMultiplyAddsPerToken()).isEqualTo(64 + 16 + 64);
    assertThat(cost.activationProducts()).isZero();
    assertThat(cost.hidden()).isEqualTo(4);
  }

  @Test
  void aGraphBuiltForTheRuntimeIsCountedToo() {
    byte[] onnx =
        TinyOnnxModels.mlmEncoder(
            TinyOnnxModels.table(50, 8, 1), TinyOnnxModels.table(8, 50, 2), 50, 8);
    OnnxGraphCost cost = OnnxGraphCost.read(onnx);
    assertThat(cost.weightMultiplyAddsPerToken()).isEqualTo(400);
    assertThat(cost.activationProducts()).isZero();
  }

  @Test
  void bytesThatAreNotAModelAreRefused() {
    assertThatThrownBy(() -> OnnxGraphCost.read(new byte[] {(byte) 0xff, 0x01, 0x02}))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("not a readable ONNX model");
  }
}
