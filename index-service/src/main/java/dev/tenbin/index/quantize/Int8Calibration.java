package dev.tenbin.index.quantize;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.List;
import java.util.Properties;

/**
 * The per-dimension corpus ranges an int8 variant quantizes with: {@code min[d]} and {@code max[d]}
 * over the corpus vectors only (never the queries), after truncation and, for cosine,
 * normalisation. One calibration exists per (similarity, truncation) variant.
 *
 * <p>{@link #write} stores it as a small text file (values in {@link Float#toString} form, which
 * round-trips exactly), replaced atomically, so a collection can keep and describe the ranges its
 * codes were made with.
 *
 * @param min per-dimension corpus minimum
 * @param max per-dimension corpus maximum
 */
public record Int8Calibration(float[] min, float[] max) {
  public Int8Calibration {
    if (min.length != max.length || min.length == 0) {
      throw new IllegalArgumentException(
          "min and max need one value per dimension: " + min.length + " and " + max.length);
    }
    for (int d = 0; d < min.length; d++) {
      if (!(min[d] <= max[d]) || !Float.isFinite(min[d]) || !Float.isFinite(max[d])) {
        throw new IllegalArgumentException(
            "dimension " + d + " has no finite range: " + min[d] + ".." + max[d]);
      }
    }
    min = min.clone();
    max = max.clone();
  }

  /**
   * Per-dimension minimum and maximum of row-major vectors of {@code dims} dimensions (at least
   * one).
   */
  public static Int8Calibration of(float[] vectors, int dims) {
    if (dims < 1 || vectors.length < dims || vectors.length % dims != 0) {
      throw new IllegalArgumentException(
          "calibration needs at least one whole vector of "
              + dims
              + " dimensions, got "
              + vectors.length
              + " values");
    }
    float[] min = Arrays.copyOf(vectors, dims);
    float[] max = Arrays.copyOf(vectors, dims);
    for (int row = dims; row < vectors.length; row += dims) {
      for (int d = 0; d < dims; d++) {
        float x = vectors[row + d];
        if (x < min[d]) {
          min[d] = x;
        }
        if (x > max[d]) {
          max[d] = x;
        }
      }
    }
    return new Int8Calibration(min, max);
  }

  /**
   * The ranges of both corpora together: per dimension the smaller minimum and the larger maximum
   * (calibrating on parts and spanning them equals calibrating on the whole).
   */
  public Int8Calibration span(Int8Calibration other) {
    if (other.min.length != min.length) {
      throw new IllegalArgumentException(
          "cannot span " + min.length + " and " + other.min.length + " dimensions");
    }
    float[] lo = new float[min.length];
    float[] hi = new float[min.length];
    for (int d = 0; d < lo.length; d++) {
      lo[d] = Math.min(min[d], other.min[d]);
      hi[d] = Math.max(max[d], other.max[d]);
    }
    return new Int8Calibration(lo, hi);
  }

  public int dimensions() {
    return min.length;
  }

  @Override
  public float[] min() {
    return min.clone();
  }

  @Override
  public float[] max() {
    return max.clone();
  }

  /** Dimensions whose corpus values are all equal (max = min): every code there is −128. */
  public int constantDimensions() {
    int constant = 0;
    for (int d = 0; d < min.length; d++) {
      if (min[d] == max[d]) {
        constant++;
      }
    }
    return constant;
  }

  /** Stores the calibration at {@code file}, replacing any previous one atomically and durably. */
  public void write(Path file) {
    StringBuilder text =
        new StringBuilder("# Tenbin int8 calibration: per-dimension corpus min and max\n");
    text.append("dimensions=").append(min.length).append('\n');
    text.append("min=").append(join(min)).append('\n');
    text.append("max=").append(join(max)).append('\n');
    Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
    try {
      try (FileChannel channel =
          FileChannel.open(
              tmp,
              StandardOpenOption.CREATE,
              StandardOpenOption.TRUNCATE_EXISTING,
              StandardOpenOption.WRITE)) {
        channel.write(StandardCharsets.UTF_8.encode(text.toString()));
        channel.force(true);
      }
      Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot store the int8 calibration at " + file, e);
    }
  }

  /** Reads a calibration stored by {@link #write}. */
  public static Int8Calibration read(Path file) {
    Properties properties = new Properties();
    try (var reader = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
      properties.load(reader);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the int8 calibration at " + file, e);
    }
    int dimensions = Integer.parseInt(required(properties, "dimensions", file));
    float[] min = parse(required(properties, "min", file));
    float[] max = parse(required(properties, "max", file));
    if (min.length != dimensions || max.length != dimensions) {
      throw new IllegalStateException(
          "int8 calibration at " + file + " does not hold " + dimensions + " dimensions");
    }
    return new Int8Calibration(min, max);
  }

  private static String required(Properties properties, String key, Path file) {
    String value = properties.getProperty(key);
    if (value == null) {
      throw new IllegalStateException("int8 calibration at " + file + " has no " + key);
    }
    return value;
  }

  private static String join(float[] values) {
    StringBuilder out = new StringBuilder();
    for (int i = 0; i < values.length; i++) {
      out.append(i == 0 ? "" : ",").append(values[i]);
    }
    return out.toString();
  }

  private static float[] parse(String text) {
    List<String> parts = Arrays.asList(text.split(","));
    float[] values = new float[parts.size()];
    for (int i = 0; i < values.length; i++) {
      values[i] = Float.parseFloat(parts.get(i).trim());
    }
    return values;
  }

  @Override
  public boolean equals(Object other) {
    return other instanceof Int8Calibration that
        && Arrays.equals(min, that.min)
        && Arrays.equals(max, that.max);
  }

  @Override
  public int hashCode() {
    return 31 * Arrays.hashCode(min) + Arrays.hashCode(max);
  }

  @Override
  public String toString() {
    return "Int8Calibration[dimensions=" + min.length + ", constant=" + constantDimensions() + "]";
  }
}
