package dev.tenbin.eval.cache;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * How one encoder output is stored: little-endian IEEE floats, so a value reads back with the same
 * bits. Dense: {@code float32[n]}; sparse: {@code int32 n, int32[n] ids, float32[n] weights};
 * multi-vector: {@code int32 tokens, int32 dimension, float32[tokens * dimension]} row by row.
 */
interface PayloadCodec<T> {
  byte[] encode(T value);

  /**
   * Decodes the whole of {@code payload} (little-endian).
   *
   * @throws CorruptPayloadException when its size or counts do not form a value of this kind
   */
  T decode(ByteBuffer payload);

  PayloadCodec<float[]> DENSE =
      new PayloadCodec<>() {
        @Override
        public byte[] encode(float[] vector) {
          ByteBuffer out = allocate(4 * vector.length);
          out.asFloatBuffer().put(vector);
          return out.array();
        }

        @Override
        public float[] decode(ByteBuffer payload) {
          if (payload.remaining() % 4 != 0) {
            throw new CorruptPayloadException(
                "a dense payload of "
                    + payload.remaining()
                    + " bytes is not a whole number of floats");
          }
          float[] vector = new float[payload.remaining() / 4];
          payload.order(ByteOrder.LITTLE_ENDIAN).asFloatBuffer().get(vector);
          return vector;
        }
      };

  PayloadCodec<SparseVector> SPARSE =
      new PayloadCodec<>() {
        @Override
        public byte[] encode(SparseVector vector) {
          int n = vector.indices().length;
          ByteBuffer out = allocate(4 + 8 * n);
          out.putInt(n);
          out.asIntBuffer().put(vector.indices());
          out.position(4 + 4 * n);
          out.asFloatBuffer().put(vector.values());
          return out.array();
        }

        @Override
        public SparseVector decode(ByteBuffer payload) {
          payload.order(ByteOrder.LITTLE_ENDIAN);
          int n = payload.remaining() >= 4 ? payload.getInt() : -1;
          if (n < 0 || 8L * n != payload.remaining()) {
            throw new CorruptPayloadException(
                "a sparse payload's count does not match its " + (payload.limit()) + " bytes");
          }
          int[] indices = new int[n];
          float[] values = new float[n];
          payload.asIntBuffer().get(indices);
          payload.position(payload.position() + 4 * n);
          payload.asFloatBuffer().get(values);
          return new SparseVector(indices, values);
        }
      };

  PayloadCodec<float[][]> MULTI_VECTOR =
      new PayloadCodec<>() {
        @Override
        public byte[] encode(float[][] rows) {
          int dimension = rows.length == 0 ? 0 : rows[0].length;
          ByteBuffer out = allocate(8 + 4 * rows.length * dimension);
          out.putInt(rows.length).putInt(dimension);
          var floats = out.asFloatBuffer();
          for (float[] row : rows) {
            floats.put(row);
          }
          return out.array();
        }

        @Override
        public float[][] decode(ByteBuffer payload) {
          payload.order(ByteOrder.LITTLE_ENDIAN);
          if (payload.remaining() < 8) {
            throw new CorruptPayloadException(
                "a multi-vector payload of " + payload.remaining() + " bytes has no header");
          }
          int tokens = payload.getInt();
          int dimension = payload.getInt();
          if (tokens < 0
              || dimension < 0
              || (tokens > 0 && dimension == 0)
              || 4L * tokens * dimension != payload.remaining()) {
            throw new CorruptPayloadException(
                "a multi-vector payload of "
                    + tokens
                    + " x "
                    + dimension
                    + " does not match its "
                    + payload.limit()
                    + " bytes");
          }
          float[][] rows = new float[tokens][dimension];
          var floats = payload.asFloatBuffer();
          for (float[] row : rows) {
            floats.get(row);
          }
          return rows;
        }
      };

  private static ByteBuffer allocate(int bytes) {
    return ByteBuffer.allocate(bytes).order(ByteOrder.LITTLE_ENDIAN);
  }
}
