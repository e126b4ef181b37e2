package dev.tenbin.encoder.light;

import dev.tenbin.core.InvalidInputException;
import java.nio.ByteBuffer;

/**
 * How a LightRetriever cache stores one row of {@code width} values, little-endian: FP32 ({@code
 * 4·width} bytes), FP16 ({@code 2·width}), or INT8 with a per-row FP32 scale ({@code 4 + width}
 * bytes: the scale {@code max|v|/127}, then {@code round(v/scale)} per value). Reading always
 * widens to FP32 and accumulates in FP32.
 */
public enum RowFormat {
  FP32("fp32"),
  FP16("fp16"),
  INT8("int8");

  private final String manifestName;

  RowFormat(String manifestName) {
    this.manifestName = manifestName;
  }

  /** The name in a manifest's {@code dtype}. */
  public String manifestName() {
    return manifestName;
  }

  /** The format a manifest names. */
  public static RowFormat of(String manifestName) {
    for (RowFormat format : values()) {
      if (format.manifestName.equals(manifestName)) {
        return format;
      }
    }
    throw new InvalidInputException("dtype", "unknown cache dtype '" + manifestName + "'");
  }

  /** Bytes one row of {@code width} values takes. */
  public long rowBytes(int width) {
    return switch (this) {
      case FP32 -> 4L * width;
      case FP16 -> 2L * width;
      case INT8 -> 4L + width;
    };
  }

  /** Appends one row to {@code out}, which is little-endian. */
  void write(float[] row, ByteBuffer out) {
    switch (this) {
      case FP32 -> {
        for (float v : row) {
          out.putFloat(v);
        }
      }
      case FP16 -> {
        for (float v : row) {
          out.putShort(Float.floatToFloat16(v));
        }
      }
      case INT8 -> {
        float max = 0;
        for (float v : row) {
          max = Math.max(max, Math.abs(v));
        }
        float scale = max / 127f;
        out.putFloat(scale);
        for (float v : row) {
          out.put(scale == 0 ? 0 : (byte) Math.max(-127, Math.min(127, Math.round(v / scale))));
        }
      }
    }
  }

  /**
   * Adds the row at {@code offset} of {@code rows} (little-endian, read with absolute gets only, so
   * one buffer serves concurrent readers) to {@code sum} (FP32).
   */
  void addTo(ByteBuffer rows, int offset, float[] sum) {
    int width = sum.length;
    switch (this) {
      case FP32 -> {
        for (int h = 0; h < width; h++) {
          sum[h] += rows.getFloat(offset + 4 * h);
        }
      }
      case FP16 -> {
        for (int h = 0; h < width; h++) {
          sum[h] += Float.float16ToFloat(rows.getShort(offset + 2 * h));
        }
      }
      case INT8 -> {
        float scale = rows.getFloat(offset);
        int values = offset + 4;
        for (int h = 0; h < width; h++) {
          sum[h] += scale * rows.get(values + h);
        }
      }
    }
  }
}
