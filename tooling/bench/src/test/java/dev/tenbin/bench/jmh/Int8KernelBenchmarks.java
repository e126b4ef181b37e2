package dev.tenbin.bench.jmh;

import dev.tenbin.index.dense.DotProduct;
import dev.tenbin.index.quantize.Int8Quantizer;
import dev.tenbin.index.quantize.Int8Rows;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import jdk.incubator.vector.ByteVector;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.ShortVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;
import org.apache.lucene.util.VectorUtil;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The per-document kernels of the dense scans on one thread, in cache: {@value #DOCS} documents of
 * {@value #DIM} dimensions (384 KB of codes, 1.5 MB of floats), so the figure is the kernel's own
 * rate, not memory's; µs per operation / {@value #DOCS} = µs per document.
 *
 * <ul>
 *   <li>{@code floatDot}: {@link DotProduct#dot}, the float scan's kernel;
 *   <li>{@code int8Rows}: {@link Int8Rows#dot}, the int8 scan's kernel (unsigned 16-bit products);
 *   <li>{@code int8Signed}: the kernel it replaced (signed codes widened to 16 bits, each pair of
 *       products split with three shifts), kept here to compare against;
 *   <li>{@code luceneInt8}: Lucene's {@link VectorUtil#dotProduct(byte[], byte[])}.
 * </ul>
 *
 * The set-up checks that the three int8 kernels give the scalar reference's integers. Run: {@code
 * ./tenbin jmh Int8KernelBenchmarks -f 1 -wi 3 -i 5 -w 1 -r 1}.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Fork(
    value = 1,
    jvmArgsAppend = {"--add-modules", "jdk.incubator.vector", "-Xss4m"})
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
public class Int8KernelBenchmarks {
  static final int DIM = 384;
  static final int DOCS = 1000;
  private static final VectorSpecies<Byte> BYTES = ByteVector.SPECIES_128;
  private static final VectorSpecies<Short> SHORTS = ShortVector.SPECIES_256;
  private static final VectorSpecies<Integer> INTS = IntVector.SPECIES_256;

  float[] floatQuery;
  float[] floatDocs;
  byte[] queryCodes;
  short[] widenedQuery;
  Int8Rows.Query rowQuery;
  byte[] codes;
  Int8Rows rows;
  byte[][] codeRows;
  float[] out;

  @Setup
  public void setup() {
    Random random = new Random(7);
    floatQuery = new float[DIM];
    floatDocs = new float[DOCS * DIM];
    for (int i = 0; i < DIM; i++) {
      floatQuery[i] = (float) random.nextGaussian();
    }
    for (int i = 0; i < floatDocs.length; i++) {
      floatDocs[i] = (float) random.nextGaussian();
    }
    queryCodes = new byte[DIM];
    random.nextBytes(queryCodes);
    widenedQuery = new short[DIM];
    for (int i = 0; i < DIM; i++) {
      widenedQuery[i] = queryCodes[i];
    }
    rowQuery = Int8Rows.Query.of(queryCodes);
    codes = new byte[DOCS * DIM];
    random.nextBytes(codes);
    rows = Int8Rows.of(codes, DIM);
    codeRows = new byte[DOCS][DIM];
    for (int i = 0; i < codes.length; i++) {
      codeRows[i / DIM][i % DIM] = codes[i];
    }
    out = new float[DOCS];
    for (int d = 0; d < DOCS; d++) {
      int exact = Int8Quantizer.dot(queryCodes, codes, d * DIM);
      if (rows.dot(rowQuery, d) != exact
          || signedDot(widenedQuery, codes, d * DIM) != exact
          || VectorUtil.dotProduct(queryCodes, codeRows[d]) != exact) {
        throw new IllegalStateException("the int8 kernels disagree on document " + d);
      }
    }
  }

  @Benchmark
  public float[] floatDot() {
    for (int d = 0; d < DOCS; d++) {
      out[d] = DotProduct.dot(floatQuery, floatDocs, d * DIM, DIM);
    }
    return out;
  }

  @Benchmark
  public float[] int8Rows() {
    for (int d = 0; d < DOCS; d++) {
      out[d] = rows.dot(rowQuery, d);
    }
    return out;
  }

  @Benchmark
  public float[] int8Signed() {
    for (int d = 0; d < DOCS; d++) {
      out[d] = signedDot(widenedQuery, codes, d * DIM);
    }
    return out;
  }

  @Benchmark
  public float[] luceneInt8() {
    for (int d = 0; d < DOCS; d++) {
      out[d] = VectorUtil.dotProduct(queryCodes, codeRows[d]);
    }
    return out;
  }

  /**
   * The previous scan kernel: sixteen signed codes widened to 16-bit lanes and multiplied there;
   * each pair of products read as one 32-bit lane p and split into {@code p >> 16} and {@code (p <<
   * 16) >> 16} (arithmetic shifts), both added to int accumulators.
   */
  static int signedDot(short[] query, byte[] codes, int offset) {
    IntVector high = IntVector.zero(INTS);
    IntVector low = IntVector.zero(INTS);
    for (int i = 0; i < DIM; i += SHORTS.length()) {
      ShortVector document =
          (ShortVector) ByteVector.fromArray(BYTES, codes, offset + i).castShape(SHORTS, 0);
      IntVector pairs =
          (IntVector) document.mul(ShortVector.fromArray(SHORTS, query, i)).reinterpretAsInts();
      high = high.add(pairs.lanewise(VectorOperators.ASHR, 16));
      low = low.add(pairs.lanewise(VectorOperators.LSHL, 16).lanewise(VectorOperators.ASHR, 16));
    }
    return high.add(low).reduceLanes(VectorOperators.ADD);
  }
}
