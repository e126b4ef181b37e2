package dev.tenbin.eval.cache;

import dev.tenbin.client.encoder.EncoderClient;
import dev.tenbin.proto.encoder.v1.GetModelInfoResponse;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.IntConsumer;

/**
 * Encodes through an {@link EmbeddingCache}: cached texts are read back bit for bit, the others
 * (each distinct text once, in input order) are encoded in streamed calls of {@link #SLICE} texts,
 * each slice stored as soon as it is encoded. Results are in input order, one fresh array per
 * input, as the uncached {@link EncoderClient} calls return them. Each model's card (revision,
 * prompts, max length, dtype) and provenance (provider, device, ONNX Runtime, model files hash) are
 * fetched once per instance to form the {@link CacheKey}.
 */
public final class CachedEncoder {
  private static final int DENSE_CHUNK = 64;
  private static final int SPARSE_CHUNK = 64;
  private static final int MULTI_VECTOR_CHUNK = 32;

  /**
   * Missing texts are encoded and stored this many at a time, so an interrupted encode keeps its
   * finished slices.
   */
  public static final int SLICE = 512;

  private final EmbeddingCache cache;
  private final EncoderClient client;
  private final Map<String, GetModelInfoResponse> infos = new ConcurrentHashMap<>();

  CachedEncoder(EmbeddingCache cache, EncoderClient client) {
    this.cache = cache;
    this.client = client;
  }

  /**
   * Dense vectors at the model's full dimension, as {@link EncoderClient#streamEncodeDense} returns
   * them.
   */
  public List<float[]> dense(
      String modelId, List<String> texts, boolean query, IntConsumer progress) {
    CacheKey key = CacheKey.of(info(modelId), query, CacheKey.Kind.DENSE, 0);
    return through(
        key,
        PayloadCodec.DENSE,
        texts,
        progress,
        (misses, done) -> client.streamEncodeDense(modelId, misses, query, DENSE_CHUNK, done));
  }

  /**
   * The document vectors of one corpus slice, a slice being the unit of resume: a slice recorded as
   * encoded ({@link SliceLedger}) whose records are all in the cache is read back with the encode
   * time measured when it was encoded; any other slice is encoded whole, timed, stored and recorded
   * (texts already stored keep their stored vectors). So an encode cut off mid-corpus resumes at
   * its first unfinished slice, and a cell's encode time is the sum of its slices' measured times,
   * whichever run encoded them. Several slices may be encoded at once from several threads (one per
   * encoder replica): each is stored and recorded on its own when it finishes, and a slice is found
   * by its digest, so slices recorded out of corpus order are each read back.
   */
  public SliceEncoding<float[]> denseSlice(
      String modelId, List<String> texts, IntConsumer progress) {
    CacheKey key = CacheKey.of(info(modelId), false, CacheKey.Kind.DENSE, 0);
    return slice(
        key,
        PayloadCodec.DENSE,
        texts,
        progress,
        (all, done) -> client.streamEncodeDense(modelId, all, false, DENSE_CHUNK, done));
  }

  /** Learned sparse vectors, pruned to the {@code topK} largest weights (0: all). */
  public List<SparseVector> sparse(
      String modelId, List<String> texts, boolean query, int topK, IntConsumer progress) {
    CacheKey key = CacheKey.of(info(modelId), query, CacheKey.Kind.SPARSE, topK);
    return through(
        key,
        PayloadCodec.SPARSE,
        texts,
        progress,
        (misses, done) ->
            client.streamEncodeSparse(modelId, misses, query, topK, SPARSE_CHUNK, done).stream()
                .map(SparseVector::of)
                .toList());
  }

  /** Per-token vectors, each as [tokens][dimension]. */
  public List<float[][]> multiVector(
      String modelId, List<String> texts, boolean query, IntConsumer progress) {
    CacheKey key = CacheKey.of(info(modelId), query, CacheKey.Kind.MULTI_VECTOR, 0);
    return through(
        key,
        PayloadCodec.MULTI_VECTOR,
        texts,
        progress,
        (misses, done) ->
            client.streamEncodeMultiVector(modelId, misses, query, MULTI_VECTOR_CHUNK, done));
  }

  /** The streamed encode of the missing texts. */
  @FunctionalInterface
  private interface Encode<T> {
    List<T> encode(List<String> texts, IntConsumer done);
  }

  private <T> List<T> through(
      CacheKey key,
      PayloadCodec<T> codec,
      List<String> texts,
      IntConsumer progress,
      Encode<T> encode) {
    KeySpace space = cache.space(key);
    List<T> results = new ArrayList<>(Arrays.asList(newArray(texts.size())));
    Map<TextHash, List<Integer>> missing = new LinkedHashMap<>();
    List<String> missingTexts = new ArrayList<>();
    long hitBytes = 0;
    for (int i = 0; i < texts.size(); i++) {
      TextHash hash = TextHash.of(texts.get(i));
      List<Integer> positions = missing.get(hash);
      if (positions != null) {
        positions.add(i);
        continue;
      }
      ByteBuffer payload = space.read(hash);
      T cached = payload == null ? null : decodeOrNull(codec, payload);
      if (cached == null) {
        missing.computeIfAbsent(hash, h -> new ArrayList<>()).add(i);
        missingTexts.add(texts.get(i));
      } else {
        hitBytes += payload.limit();
        results.set(i, cached);
      }
    }
    int hits = texts.size() - missing.values().stream().mapToInt(List::size).sum();
    cache.recordHits(hits, hitBytes);
    List<TextHash> hashes = new ArrayList<>(missing.keySet());
    for (int from = 0; from < hashes.size(); from += SLICE) {
      int to = Math.min(hashes.size(), from + SLICE);
      int before = hits + from;
      List<T> encoded =
          encode.encode(missingTexts.subList(from, to), done -> progress.accept(before + done));
      if (encoded.size() != to - from) {
        throw new IllegalStateException(
            "the encoder returned " + encoded.size() + " outputs for " + (to - from) + " texts");
      }
      List<byte[]> payloads = new ArrayList<>(to - from);
      for (int m = from; m < to; m++) {
        byte[] payload = codec.encode(encoded.get(m - from));
        payloads.add(payload);
        List<Integer> positions = missing.get(hashes.get(m));
        results.set(positions.getFirst(), encoded.get(m - from));
        for (int p = 1; p < positions.size(); p++) {
          results.set(
              positions.get(p),
              codec.decode(ByteBuffer.wrap(payload).order(ByteOrder.LITTLE_ENDIAN)));
        }
      }
      long written = space.append(hashes.subList(from, to), payloads);
      cache.recordMisses(to - from, written);
    }
    progress.accept(texts.size());
    return results;
  }

  private <T> SliceEncoding<T> slice(
      CacheKey key,
      PayloadCodec<T> codec,
      List<String> texts,
      IntConsumer progress,
      Encode<T> encode) {
    KeySpace space = cache.space(key);
    List<TextHash> hashes = new ArrayList<>(texts.size());
    texts.forEach(text -> hashes.add(TextHash.of(text)));
    SliceLedger.Entry recorded = space.slice(hashes);
    if (recorded != null) {
      List<T> values = readAll(space, codec, hashes, true);
      if (values != null) {
        progress.accept(texts.size());
        return new SliceEncoding<>(values, recorded.encodeNanos(), true);
      }
    }
    Map<TextHash, String> distinct = new LinkedHashMap<>();
    for (int i = 0; i < texts.size(); i++) {
      distinct.putIfAbsent(hashes.get(i), texts.get(i));
    }
    List<String> distinctTexts = new ArrayList<>(distinct.values());
    long start = System.nanoTime();
    List<T> encoded = encode.encode(distinctTexts, progress);
    long nanos = System.nanoTime() - start;
    if (encoded.size() != distinctTexts.size()) {
      throw new IllegalStateException(
          "the encoder returned "
              + encoded.size()
              + " outputs for "
              + distinctTexts.size()
              + " texts");
    }
    List<byte[]> payloads = new ArrayList<>(encoded.size());
    Map<TextHash, byte[]> fresh = new java.util.HashMap<>();
    List<TextHash> distinctHashes = new ArrayList<>(distinct.keySet());
    for (int i = 0; i < encoded.size(); i++) {
      byte[] payload = codec.encode(encoded.get(i));
      payloads.add(payload);
      fresh.put(distinctHashes.get(i), payload);
    }
    long written = space.appendSlice(hashes, distinctHashes, payloads, nanos);
    cache.recordMisses(distinctTexts.size(), written);
    // The stored record is what every cell reads, so a text stored before keeps its vector.
    List<T> values = readAll(space, codec, hashes, false);
    if (values == null) {
      values = new ArrayList<>(texts.size());
      for (TextHash hash : hashes) {
        values.add(codec.decode(ByteBuffer.wrap(fresh.get(hash)).order(ByteOrder.LITTLE_ENDIAN)));
      }
    }
    progress.accept(texts.size());
    return new SliceEncoding<>(values, nanos, false);
  }

  /**
   * Every text's cached value, one fresh copy per input (counted as hits when {@code hits}); null
   * when one is missing or damaged.
   */
  private <T> List<T> readAll(
      KeySpace space, PayloadCodec<T> codec, List<TextHash> hashes, boolean hits) {
    List<T> values = new ArrayList<>(hashes.size());
    long bytes = 0;
    for (TextHash hash : hashes) {
      ByteBuffer payload = space.read(hash);
      T value = payload == null ? null : decodeOrNull(codec, payload);
      if (value == null) {
        return null;
      }
      bytes += payload.limit();
      values.add(value);
    }
    if (hits) {
      cache.recordHits(hashes.size(), bytes);
    }
    return values;
  }

  /**
   * The cached value, or null when its record is not a value of this kind (it is encoded again).
   */
  private static <T> T decodeOrNull(PayloadCodec<T> codec, ByteBuffer payload) {
    try {
      return codec.decode(payload);
    } catch (CorruptPayloadException e) {
      return null;
    }
  }

  @SuppressWarnings("unchecked")
  private static <T> T[] newArray(int size) {
    return (T[]) new Object[size];
  }

  private GetModelInfoResponse info(String modelId) {
    return infos.computeIfAbsent(modelId, client::modelInfo);
  }
}
