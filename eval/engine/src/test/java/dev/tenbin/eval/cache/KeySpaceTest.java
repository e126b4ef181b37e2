package dev.tenbin.eval.cache;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class KeySpaceTest {
  @TempDir Path tmp;

  private static final CacheKey KEY =
      new CacheKey("m", "rev", "", "document", "", 512, "dense", "fp32", "MEAN", true, 0, 8);

  private static float[] vector(Random random, int dimension) {
    float[] v = new float[dimension];
    for (int i = 0; i < dimension; i++) {
      v[i] = random.nextFloat() - 0.5f;
    }
    return v;
  }

  private static void put(KeySpace space, List<String> texts, List<float[]> vectors) {
    space.append(
        texts.stream().map(TextHash::of).toList(),
        vectors.stream().map(PayloadCodec.DENSE::encode).toList());
  }

  private static float[] get(KeySpace space, String text) {
    ByteBuffer payload = space.read(TextHash.of(text));
    return payload == null ? null : PayloadCodec.DENSE.decode(payload);
  }

  @Test
  void reopeningFindsEveryRecordBitForBit() {
    Random random = new Random(1);
    List<float[]> vectors =
        List.of(vector(random, 8), new float[] {Float.NaN, -0.0f, Float.MIN_VALUE, 1e-38f});
    try (KeySpace space = KeySpace.open(tmp, KEY, KeySpace.DEFAULT_SEGMENT_BYTES)) {
      put(space, List.of("a", "b"), vectors);
    }

    try (KeySpace reopened = KeySpace.open(tmp, KEY, KeySpace.DEFAULT_SEGMENT_BYTES)) {
      assertThat(reopened.size()).isEqualTo(2);
      assertThat(get(reopened, "a")).isEqualTo(vectors.get(0));
      float[] special = get(reopened, "b");
      for (int i = 0; i < special.length; i++) {
        assertThat(Float.floatToRawIntBits(special[i]))
            .isEqualTo(Float.floatToRawIntBits(vectors.get(1)[i]));
      }
      assertThat(get(reopened, "c")).isNull();
    }
    assertThat(tmp.resolve("key.json"))
        .content()
        .contains("\"model_id\" : \"m\"", "\"max_length\" : 512");
  }

  @Test
  void aTornTrailingRecordIsIgnoredAndCutOffBeforeTheNextAppend() throws Exception {
    Random random = new Random(2);
    float[] kept = vector(random, 16);
    try (KeySpace space = KeySpace.open(tmp, KEY, KeySpace.DEFAULT_SEGMENT_BYTES)) {
      put(space, List.of("kept", "torn"), List.of(kept, vector(random, 16)));
    }
    Path segment = tmp.resolve("segment-000001.bin");
    long full = Files.size(segment);
    try (FileChannel channel = FileChannel.open(segment, StandardOpenOption.WRITE)) {
      channel.truncate(full - 5);
    }

    float[] added = vector(random, 16);
    try (KeySpace space = KeySpace.open(tmp, KEY, KeySpace.DEFAULT_SEGMENT_BYTES)) {
      assertThat(space.size()).isEqualTo(1);
      assertThat(get(space, "torn")).isNull();
      put(space, List.of("added"), List.of(added));
    }

    try (KeySpace space = KeySpace.open(tmp, KEY, KeySpace.DEFAULT_SEGMENT_BYTES)) {
      assertThat(space.size()).isEqualTo(2);
      assertThat(get(space, "kept")).isEqualTo(kept);
      assertThat(get(space, "added")).isEqualTo(added);
    }
    assertThat(Files.size(segment)).isEqualTo(full);
  }

  @Test
  void aRecordDamagedAfterItWasIndexedReadsAsMissingNeverAsOtherBytes() throws Exception {
    float[] a = {1, 2, 3, 4};
    try (KeySpace space = KeySpace.open(tmp, KEY, KeySpace.DEFAULT_SEGMENT_BYTES)) {
      put(space, List.of("a", "b"), List.of(a, new float[] {5, 6, 7, 8}));
    }
    Path segment = tmp.resolve("segment-000001.bin");
    try (KeySpace stale = KeySpace.open(tmp, KEY, KeySpace.DEFAULT_SEGMENT_BYTES)) {
      // b's payload is damaged on disk; a later opener stops its scan there, cuts b off and
      // appends c where b was: the earlier opener's index still points b at those bytes.
      long lastByte = Files.size(segment) - 1;
      try (FileChannel channel =
          FileChannel.open(segment, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
        channel.write(ByteBuffer.wrap(new byte[] {42}), lastByte);
      }
      try (KeySpace later = KeySpace.open(tmp, KEY, KeySpace.DEFAULT_SEGMENT_BYTES)) {
        assertThat(get(later, "b")).isNull();
        put(later, List.of("c"), List.of(new float[] {9, 9, 9, 9, 9, 9}));
      }
      assertThat(get(stale, "a")).isEqualTo(a);
      assertThat(get(stale, "b")).as("checked again on read: missing, not c's bytes").isNull();

      try (FileChannel channel = FileChannel.open(segment, StandardOpenOption.WRITE)) {
        channel.truncate(10);
      }
      assertThat(get(stale, "a"))
          .as("a record cut off after indexing is missing, not an error")
          .isNull();
    }
  }

  @Test
  void garbageAfterTheLastRecordFailsItsChecksumAndIsIgnored() throws Exception {
    try (KeySpace space = KeySpace.open(tmp, KEY, KeySpace.DEFAULT_SEGMENT_BYTES)) {
      put(space, List.of("a"), List.of(new float[] {1, 2}));
    }
    ByteBuffer zeros = ByteBuffer.allocate(KeySpace.HEADER + 8).order(ByteOrder.LITTLE_ENDIAN);
    zeros.putInt(TextHash.BYTES, 8);
    Files.write(tmp.resolve("segment-000001.bin"), zeros.array(), StandardOpenOption.APPEND);

    try (KeySpace space = KeySpace.open(tmp, KEY, KeySpace.DEFAULT_SEGMENT_BYTES)) {
      assertThat(space.size()).isEqualTo(1);
    }
  }

  /** The hashes of slice {@code i} of a corpus cut into slices of {@code size} texts. */
  private static List<TextHash> slice(int i, int size) {
    List<TextHash> hashes = new ArrayList<>();
    for (int t = i * size; t < (i + 1) * size; t++) {
      hashes.add(TextHash.of("document " + t));
    }
    return hashes;
  }

  @Test
  void slicesRecordedOutOfOrderAreEachFoundAfterAKillAndNoOtherIs() throws Exception {
    Random random = new Random(3);
    int size = 4;
    // Slices encoded at once finish in any order: 3, then 0, then 2 is stored when the process
    // dies, 1 (in flight) never.
    try (KeySpace space = KeySpace.open(tmp, KEY, KeySpace.DEFAULT_SEGMENT_BYTES)) {
      for (int i : new int[] {3, 0, 2}) {
        List<TextHash> hashes = slice(i, size);
        List<byte[]> payloads = new ArrayList<>();
        hashes.forEach(hash -> payloads.add(PayloadCodec.DENSE.encode(vector(random, 8))));
        space.appendSlice(hashes, hashes, payloads, 1_000L * (i + 1));
      }
    }
    // A line cut off mid-write by the kill (slice 1's) counts for nothing.
    String torn = SliceLedger.digest(slice(1, size)) + "\t" + size;
    Files.writeString(tmp.resolve(SliceLedger.FILE), torn, java.nio.file.StandardOpenOption.APPEND);

    try (KeySpace reopened = KeySpace.open(tmp, KEY, KeySpace.DEFAULT_SEGMENT_BYTES)) {
      assertThat(reopened.slice(slice(0, size))).isEqualTo(new SliceLedger.Entry(size, 1_000));
      assertThat(reopened.slice(slice(1, size))).as("the slice in flight").isNull();
      assertThat(reopened.slice(slice(2, size))).isEqualTo(new SliceLedger.Entry(size, 3_000));
      assertThat(reopened.slice(slice(3, size))).isEqualTo(new SliceLedger.Entry(size, 4_000));
      assertThat(reopened.slice(slice(4, size))).as("a slice never encoded").isNull();
      assertThat(reopened.size()).isEqualTo(3 * size);
    }
  }

  @Test
  void concurrentAppendsFromThreadsAndASecondOpenerLoseNothing() throws Exception {
    int threads = 4;
    int perThread = 200;
    try (KeySpace first = KeySpace.open(tmp, KEY, 4096);
        KeySpace second = KeySpace.open(tmp, KEY, 4096)) {
      ExecutorService pool = Executors.newFixedThreadPool(threads);
      List<Future<?>> done = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        KeySpace space = t % 2 == 0 ? first : second;
        int thread = t;
        done.add(
            pool.submit(
                () -> {
                  for (int i = 0; i < perThread; i += 10) {
                    List<String> texts = new ArrayList<>();
                    List<float[]> vectors = new ArrayList<>();
                    for (int j = i; j < i + 10; j++) {
                      texts.add(thread + ":" + j);
                      vectors.add(new float[] {thread, j});
                    }
                    put(space, texts, vectors);
                  }
                }));
      }
      for (Future<?> future : done) {
        future.get();
      }
      pool.shutdown();
    }

    try (KeySpace space = KeySpace.open(tmp, KEY, 4096)) {
      assertThat(space.size()).isEqualTo(threads * perThread);
      for (int t = 0; t < threads; t++) {
        for (int i = 0; i < perThread; i++) {
          assertThat(get(space, t + ":" + i)).containsExactly(t, i);
        }
      }
    }
    assertThat(tmp.resolve("segment-000002.bin"))
        .as("segments roll over at the size limit")
        .exists();
  }

  /**
   * A reopened cache gives back every one of 10,000 stored 384-d vectors, bit for bit. The time is
   * printed, not asserted beyond a bound against hangs (about 0.1 s here): what reading the cache
   * costs is measured by the warm rerun of the acceptance job (BENCHMARKS.md, "Warm rerun of the
   * acceptance job").
   */
  @Test
  void tenThousandDense384dVectorsAreReadBackExactlyAfterReopening() {
    Random random = new Random(3);
    List<String> texts = new ArrayList<>();
    List<float[]> vectors = new ArrayList<>();
    for (int i = 0; i < 10_000; i++) {
      texts.add("document number " + i);
      vectors.add(vector(random, 384));
    }
    try (KeySpace space = KeySpace.open(tmp, KEY, KeySpace.DEFAULT_SEGMENT_BYTES)) {
      put(space, texts, vectors);
    }

    long start = System.nanoTime();
    List<float[]> loaded = new ArrayList<>();
    try (KeySpace space = KeySpace.open(tmp, KEY, KeySpace.DEFAULT_SEGMENT_BYTES)) {
      long opened = System.nanoTime();
      for (String text : texts) {
        loaded.add(get(space, text));
      }
      long read = System.nanoTime();
      System.out.printf(
          "embedding cache: open+index 10k x 384-d %.1f ms, read all %.1f ms, total %.1f ms%n",
          (opened - start) / 1e6, (read - opened) / 1e6, (read - start) / 1e6);
      assertThat((read - start) / 1e9).as("seconds to open and read all").isLessThan(60.0);
    }
    assertThat(loaded).hasSize(vectors.size());
    for (int i = 0; i < vectors.size(); i++) {
      assertThat(loaded.get(i)).as("vector %d", i).containsExactly(vectors.get(i));
    }
  }
}
