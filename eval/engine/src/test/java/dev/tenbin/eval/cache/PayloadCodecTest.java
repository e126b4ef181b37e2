package dev.tenbin.eval.cache;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.junit.jupiter.api.Test;

/**
 * Stored payloads decode to what was encoded, and counts that do not match a payload's size are
 * refused.
 */
class PayloadCodecTest {
  private static ByteBuffer bytes(int... ints) {
    ByteBuffer out = ByteBuffer.allocate(4 * ints.length).order(ByteOrder.LITTLE_ENDIAN);
    for (int value : ints) {
      out.putInt(value);
    }
    return out.flip();
  }

  @Test
  void everyKindRoundTripsBitForBit() {
    float[] dense = {Float.NaN, -0f, 1e-38f};
    assertThat(PayloadCodec.DENSE.decode(ByteBuffer.wrap(PayloadCodec.DENSE.encode(dense))))
        .containsExactly(dense);
    SparseVector sparse =
        PayloadCodec.SPARSE.decode(
            ByteBuffer.wrap(
                PayloadCodec.SPARSE.encode(
                    new SparseVector(new int[] {3, 7}, new float[] {0.5f, 2f}))));
    assertThat(sparse.indices()).containsExactly(3, 7);
    assertThat(sparse.values()).containsExactly(0.5f, 2f);
    float[][] rows =
        PayloadCodec.MULTI_VECTOR.decode(
            ByteBuffer.wrap(PayloadCodec.MULTI_VECTOR.encode(new float[][] {{1, 2}, {3, 4}})));
    assertThat(rows).isDeepEqualTo(new float[][] {{1, 2}, {3, 4}});
  }

  @Test
  void countsThatDoNotMatchThePayloadSizeAreRefusedAsCorrupt() {
    assertThatThrownBy(() -> PayloadCodec.DENSE.decode(ByteBuffer.allocate(6)))
        .isInstanceOf(CorruptPayloadException.class);
    assertThatThrownBy(() -> PayloadCodec.SPARSE.decode(bytes(-127232)))
        .isInstanceOf(CorruptPayloadException.class);
    assertThatThrownBy(() -> PayloadCodec.SPARSE.decode(bytes(2, 1, 1)))
        .isInstanceOf(CorruptPayloadException.class);
    assertThatThrownBy(() -> PayloadCodec.MULTI_VECTOR.decode(bytes(1, 3, 0)))
        .isInstanceOf(CorruptPayloadException.class);
    // Two billion empty rows would fit an 8-byte payload: refused rather than allocated.
    assertThatThrownBy(() -> PayloadCodec.MULTI_VECTOR.decode(bytes(Integer.MAX_VALUE, 0)))
        .isInstanceOf(CorruptPayloadException.class);
  }
}
