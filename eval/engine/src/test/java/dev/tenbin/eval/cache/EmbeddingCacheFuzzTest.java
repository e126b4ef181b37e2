package dev.tenbin.eval.cache;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.tenbin.testing.data.Scratch;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * Fuzzes the embedding cache's on-disk format with torn and corrupt segment files and payloads.
 * Contract: a record reads back bit for bit as it was stored or is missing (then it is encoded
 * again); a damaged cache never yields another record's bytes, never throws, and takes new records
 * afterwards. A payload either decodes to a value that encodes back to an equal one or is refused
 * as corrupt.
 */
class EmbeddingCacheFuzzTest {
  private static final CacheKey KEY =
      new CacheKey("m", "rev", "", "document", "", 512, "dense", "fp32", "MEAN", true, 0, 8);

  @FuzzTest
  void tornAndCorruptSegments(FuzzedDataProvider data) throws Exception {
    Path dir = Scratch.fresh("cache");
    long segmentBytes = data.consumeBoolean() ? 160 : KeySpace.DEFAULT_SEGMENT_BYTES;
    int records = data.consumeInt(1, 12);
    List<TextHash> hashes = new ArrayList<>();
    List<byte[]> payloads = new ArrayList<>();
    for (int i = 0; i < records; i++) {
      hashes.add(TextHash.of("text " + i));
      payloads.add(payload(i));
    }
    try (KeySpace writer = KeySpace.open(dir, KEY, segmentBytes)) {
      int split = data.consumeInt(0, records);
      writer.append(hashes.subList(0, split), payloads.subList(0, split));
      writer.append(hashes.subList(split, records), payloads.subList(split, records));
    }
    KeySpace before = KeySpace.open(dir, KEY, segmentBytes);
    try {
      int damages = data.consumeInt(0, 4);
      for (int i = 0; i < damages; i++) {
        damage(dir, data);
      }
      try (KeySpace after = KeySpace.open(dir, KEY, segmentBytes)) {
        assertEachReadsBackOrIsMissing(before, hashes, payloads);
        assertEachReadsBackOrIsMissing(after, hashes, payloads);
        // The damaged cache still takes new records, and they read back exactly, from both openers.
        List<TextHash> fresh = List.of(TextHash.of("fresh a"), TextHash.of("fresh b"));
        List<byte[]> freshPayloads = List.of(payload(100), payload(101));
        after.append(fresh, freshPayloads);
        for (int i = 0; i < fresh.size(); i++) {
          assertThat(bytes(after.read(fresh.get(i)))).isEqualTo(freshPayloads.get(i));
        }
        assertEachReadsBackOrIsMissing(before, hashes, payloads);
        assertEachReadsBackOrIsMissing(after, hashes, payloads);
      }
    } finally {
      before.close();
    }
  }

  @FuzzTest
  void payloadsDecodeToWhatTheyEncodeOrAreRefused(FuzzedDataProvider data) {
    int kind = data.consumeInt(0, 2);
    byte[] bytes = data.consumeRemainingAsBytes();
    switch (kind) {
      case 0 -> roundTrip(PayloadCodec.DENSE, bytes, (a, b) -> Arrays.equals(a, b));
      case 1 ->
          roundTrip(
              PayloadCodec.SPARSE,
              bytes,
              (a, b) ->
                  Arrays.equals(a.indices(), b.indices()) && Arrays.equals(a.values(), b.values()));
      default -> roundTrip(PayloadCodec.MULTI_VECTOR, bytes, (a, b) -> Arrays.deepEquals(a, b));
    }
  }

  private static <T> void roundTrip(
      PayloadCodec<T> codec, byte[] bytes, java.util.function.BiPredicate<T, T> same) {
    T value;
    try {
      value = codec.decode(ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN));
    } catch (CorruptPayloadException refused) {
      assertThat(refused.getMessage()).isNotBlank();
      return;
    }
    byte[] again = codec.encode(value);
    T back = codec.decode(ByteBuffer.wrap(again).order(ByteOrder.LITTLE_ENDIAN));
    assertThat(same.test(value, back))
        .as("a decoded payload encodes back to the same value")
        .isTrue();
  }

  /**
   * One fault: a segment cut short, bytes flipped or overwritten, garbage appended, or a segment
   * gone.
   */
  private static void damage(Path dir, FuzzedDataProvider data) throws Exception {
    List<Path> segments;
    try (var files = Files.list(dir)) {
      segments =
          files.filter(p -> p.getFileName().toString().startsWith("segment-")).sorted().toList();
    }
    if (segments.isEmpty()) {
      return;
    }
    Path segment = segments.get(data.consumeInt(0, segments.size() - 1));
    long size = Files.size(segment);
    try (FileChannel channel =
        FileChannel.open(segment, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
      switch (data.consumeInt(0, 4)) {
        case 0 -> channel.truncate(data.consumeLong(0, size));
        case 1 -> {
          if (size > 0) {
            long at = data.consumeLong(0, size - 1);
            ByteBuffer one = ByteBuffer.allocate(1);
            channel.read(one, at);
            byte mask = data.consumeByte();
            channel.write(
                ByteBuffer.wrap(new byte[] {(byte) (one.get(0) ^ (mask == 0 ? 1 : mask))}), at);
          }
        }
        case 2 -> channel.write(ByteBuffer.wrap(data.consumeBytes(48)), data.consumeLong(0, size));
        case 3 -> channel.write(ByteBuffer.wrap(data.consumeBytes(96)), size);
        default -> {
          channel.close();
          Files.delete(segment);
        }
      }
    }
  }

  private static void assertEachReadsBackOrIsMissing(
      KeySpace space, List<TextHash> hashes, List<byte[]> payloads) {
    for (int i = 0; i < hashes.size(); i++) {
      ByteBuffer read = space.read(hashes.get(i));
      if (read != null) {
        assertThat(bytes(read))
            .as("record %d reads back as stored or not at all", i)
            .isEqualTo(payloads.get(i));
      }
    }
  }

  /** A dense payload of 1 to 9 floats, different for every index. */
  private static byte[] payload(int index) {
    float[] vector = new float[1 + index % 9];
    for (int d = 0; d < vector.length; d++) {
      vector[d] = index * 10 + d + 0.5f;
    }
    return PayloadCodec.DENSE.encode(vector);
  }

  private static byte[] bytes(ByteBuffer buffer) {
    Objects.requireNonNull(buffer, "a record just appended must be found");
    byte[] out = new byte[buffer.remaining()];
    buffer.duplicate().get(out);
    return out;
  }
}
