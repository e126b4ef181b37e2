package dev.tenbin.model.onnx;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.CodedOutputStream;
import dev.tenbin.testing.models.TinyOnnxModels;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import org.junit.jupiter.api.Test;

class OnnxGraphFactsTest {
  /** A TensorProto: dims (packed when asked), data type FLOAT, name, some raw data. */
  private static byte[] tensor(String name, long[] dims, boolean packed) throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    CodedOutputStream out = CodedOutputStream.newInstance(bytes);
    if (packed) {
      ByteArrayOutputStream packedDims = new ByteArrayOutputStream();
      CodedOutputStream p = CodedOutputStream.newInstance(packedDims);
      for (long dim : dims) {
        p.writeInt64NoTag(dim);
      }
      p.flush();
      out.writeByteArray(1, packedDims.toByteArray());
    } else {
      for (long dim : dims) {
        out.writeInt64(1, dim);
      }
    }
    out.writeInt32(2, 1);
    out.writeString(8, name);
    out.writeByteArray(9, new byte[64]);
    out.flush();
    return bytes.toByteArray();
  }

  private static byte[] model(byte[]... initializers) throws IOException {
    ByteArrayOutputStream graph = new ByteArrayOutputStream();
    CodedOutputStream g = CodedOutputStream.newInstance(graph);
    g.writeString(2, "g");
    for (byte[] initializer : initializers) {
      g.writeByteArray(5, initializer);
    }
    g.flush();
    ByteArrayOutputStream model = new ByteArrayOutputStream();
    CodedOutputStream m = CodedOutputStream.newInstance(model);
    m.writeInt64(1, 8);
    m.writeString(2, "test");
    m.writeByteArray(7, graph.toByteArray());
    m.flush();
    return model.toByteArray();
  }

  @Test
  void thePositionTableSizeIsReadFromItsInitializer() throws IOException {
    byte[] onnx =
        model(
            tensor("embeddings.word_embeddings.weight", new long[] {30522, 4}, false),
            tensor("embeddings.position_embeddings.weight", new long[] {512, 4}, false),
            tensor("encoder.layer.0.weight", new long[] {4, 4}, true));
    assertThat(OnnxGraphFacts.read(onnx).positionEmbeddings()).isEqualTo(512);
  }

  @Test
  void packedDimsAreReadToo() throws IOException {
    byte[] onnx =
        model(tensor("bert.embeddings.position_embeddings.weight", new long[] {8192, 4}, true));
    assertThat(OnnxGraphFacts.read(onnx).positionEmbeddings()).isEqualTo(8192);
  }

  @Test
  void aGraphWithoutAPositionTableOrUnreadableBytesGiveNoFacts() {
    byte[] tiny = TinyOnnxModels.embeddingEncoder(TinyOnnxModels.table(12, 8, 1), 12, 8, false);
    assertThat(OnnxGraphFacts.read(tiny).positionEmbeddings()).isZero();
    assertThat(OnnxGraphFacts.read(new byte[] {(byte) 0xff, 0x01, 0x02}).positionEmbeddings())
        .isZero();
  }
}
