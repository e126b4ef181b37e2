package dev.tenbin.model.onnx;

import com.google.protobuf.CodedInputStream;
import com.google.protobuf.WireFormat;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * What an ONNX graph itself says about the model, read from the serialized {@code ModelProto}
 * without loading it: the size of the position-embedding table (the longest input the model can
 * take), when an initializer named {@code …position_embeddings…} of rank 2 exists. Weights are
 * skipped, not copied, so reading a large graph costs one pass over its bytes.
 *
 * <p>Field numbers are those of {@code onnx.proto}: ModelProto.graph = 7, GraphProto.initializer =
 * 5, TensorProto.dims = 1, TensorProto.name = 8.
 *
 * @param positionEmbeddings rows of the position-embedding table; 0 when the graph has none that
 *     can be read (rotary or relative positions, renamed weights)
 */
public record OnnxGraphFacts(int positionEmbeddings) {
  private static final int MODEL_GRAPH = 7;
  private static final int GRAPH_INITIALIZER = 5;
  private static final int TENSOR_DIMS = 1;
  private static final int TENSOR_NAME = 8;

  /** The facts of the graph in {@code onnx}; unreadable bytes give no facts (all 0). */
  public static OnnxGraphFacts read(byte[] onnx) {
    try {
      CodedInputStream in = CodedInputStream.newInstance(onnx);
      in.setSizeLimit(Integer.MAX_VALUE);
      int positions = 0;
      while (true) {
        int tag = in.readTag();
        if (tag == 0) {
          break;
        }
        if (WireFormat.getTagFieldNumber(tag) == MODEL_GRAPH
            && WireFormat.getTagWireType(tag) == WireFormat.WIRETYPE_LENGTH_DELIMITED) {
          int limit = in.pushLimit(in.readRawVarint32());
          positions = Math.max(positions, positionsInGraph(in));
          in.popLimit(limit);
        } else {
          in.skipField(tag);
        }
      }
      return new OnnxGraphFacts(positions);
    } catch (IOException | RuntimeException e) {
      return new OnnxGraphFacts(0);
    }
  }

  private static int positionsInGraph(CodedInputStream in) throws IOException {
    int positions = 0;
    while (!in.isAtEnd()) {
      int tag = in.readTag();
      if (WireFormat.getTagFieldNumber(tag) == GRAPH_INITIALIZER
          && WireFormat.getTagWireType(tag) == WireFormat.WIRETYPE_LENGTH_DELIMITED) {
        int limit = in.pushLimit(in.readRawVarint32());
        positions = Math.max(positions, positionRows(in));
        in.popLimit(limit);
      } else {
        in.skipField(tag);
      }
    }
    return positions;
  }

  /** Rows of a rank-2 initializer named like a position-embedding table, else 0. */
  private static int positionRows(CodedInputStream in) throws IOException {
    TensorHeader tensor = TensorHeader.read(in);
    List<Long> dims = tensor.dims();
    boolean positional = tensor.name().toLowerCase(Locale.ROOT).contains("position_embeddings");
    return positional && dims.size() == 2 && dims.getFirst() > 0 && dims.getFirst() < 1 << 24
        ? (int) (long) dims.getFirst()
        : 0;
  }

  /** A TensorProto's name and dims (packed or not), its data skipped. */
  record TensorHeader(String name, List<Long> dims) {
    /** Reads the tensor {@code in} is limited to. */
    static TensorHeader read(CodedInputStream in) throws IOException {
      List<Long> dims = new ArrayList<>(2);
      String name = "";
      while (!in.isAtEnd()) {
        int tag = in.readTag();
        int field = WireFormat.getTagFieldNumber(tag);
        if (field == TENSOR_DIMS && WireFormat.getTagWireType(tag) == WireFormat.WIRETYPE_VARINT) {
          dims.add(in.readInt64());
        } else if (field == TENSOR_DIMS
            && WireFormat.getTagWireType(tag) == WireFormat.WIRETYPE_LENGTH_DELIMITED) {
          int limit = in.pushLimit(in.readRawVarint32());
          while (!in.isAtEnd()) {
            dims.add(in.readInt64());
          }
          in.popLimit(limit);
        } else if (field == TENSOR_NAME) {
          name = in.readString();
        } else {
          in.skipField(tag);
        }
      }
      return new TensorHeader(name, dims);
    }
  }
}
