package dev.tenbin.integration.cache;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenbin.client.encoder.EncoderClient;
import dev.tenbin.encoder.config.EncoderServiceConfig;
import dev.tenbin.encoder.server.EncoderServer;
import dev.tenbin.eval.cache.CachedEncoder;
import dev.tenbin.eval.cache.EmbeddingCache;
import dev.tenbin.eval.cache.SparseVector;
import dev.tenbin.model.card.LocalModelDirectory;
import dev.tenbin.model.card.ModelCard;
import dev.tenbin.testing.models.TinyModels;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.ClientInterceptor;
import io.grpc.ClientInterceptors;
import io.grpc.ManagedChannel;
import io.grpc.MethodDescriptor;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class EmbeddingCacheTest {
  @TempDir Path tmp;

  private final List<AutoCloseable> open = new ArrayList<>();
  private final AtomicInteger encodeCalls = new AtomicInteger();
  private Path models;

  private static final List<String> TEXTS =
      List.of(
          "apple banana",
          "cherry date elder",
          "fig grape apple cherry",
          "banana",
          "apple banana",
          "grape");

  @BeforeEach
  void models() throws Exception {
    models = tmp.resolve("models");
    TinyModels.dense(models, "tiny-dense", false);
    TinyModels.sparse(models, "tiny-splade");
    TinyModels.multiVector(models, "tiny-colbert");
  }

  @AfterEach
  void close() throws Exception {
    for (AutoCloseable closeable : open.reversed()) {
      closeable.close();
    }
  }

  /** A client of a fresh in-process encoder service that counts its encode calls. */
  private EncoderClient encoder() {
    String name = "encoder-" + UUID.randomUUID();
    open.add(
        EncoderServer.startInProcess(
            name,
            EncoderServiceConfig.embedded(models, tmp.resolve("hub")),
            new SimpleMeterRegistry()));
    ManagedChannel channel = InProcessChannelBuilder.forName(name).directExecutor().build();
    open.add(channel::shutdownNow);
    ClientInterceptor counting =
        new ClientInterceptor() {
          @Override
          public <Q, R> ClientCall<Q, R> interceptCall(
              MethodDescriptor<Q, R> method, CallOptions options, Channel next) {
            if (method.getBareMethodName().contains("Encode")) {
              encodeCalls.incrementAndGet();
            }
            return next.newCall(method, options);
          }
        };
    return EncoderClient.of(ClientInterceptors.intercept(channel, counting));
  }

  private EmbeddingCache cache() {
    EmbeddingCache cache = EmbeddingCache.open(tmp.resolve("cache"));
    open.add(cache);
    return cache;
  }

  private void rewriteCard(String id, UnaryOperator<ModelCard> change) throws Exception {
    Path dir = models.resolve(id);
    LocalModelDirectory.writeCard(dir, change.apply(LocalModelDirectory.readCard(dir)));
  }

  @Test
  void denseVectorsFromTheCacheAreBitIdenticalToADirectEncodeAndTheSecondCallEncodesNothing() {
    EncoderClient client = encoder();
    List<float[]> direct = client.streamEncodeDense("tiny-dense", TEXTS, false, 64, done -> {});
    encodeCalls.set(0);
    CachedEncoder cached = cache().cached(client);

    List<float[]> cold = cached.dense("tiny-dense", TEXTS, false, done -> {});
    int coldCalls = encodeCalls.getAndSet(0);
    List<float[]> warm = cached.dense("tiny-dense", TEXTS, false, done -> {});

    assertThat(coldCalls).isEqualTo(1);
    assertThat(encodeCalls.get()).isZero();
    for (int i = 0; i < TEXTS.size(); i++) {
      assertThat(bits(cold.get(i))).isEqualTo(bits(direct.get(i)));
      assertThat(bits(warm.get(i))).isEqualTo(bits(direct.get(i)));
    }
    assertThat(warm.get(0)).isNotSameAs(warm.get(4));
  }

  @Test
  void anEncodeInterruptedAfterItsFirstSliceKeepsThatSliceAndTheNextCallEncodesOnlyTheRest() {
    EmbeddingCache cache = cache();
    CachedEncoder cached = cache.cached(encoder());
    List<String> texts = new java.util.ArrayList<>();
    for (int i = 0; i < CachedEncoder.SLICE + 100; i++) {
      texts.add("apple " + i);
    }
    org.assertj.core.api.Assertions.assertThatThrownBy(
            () ->
                cached.dense(
                    "tiny-dense",
                    texts,
                    false,
                    done -> {
                      if (done > CachedEncoder.SLICE) {
                        throw new IllegalStateException("killed");
                      }
                    }))
        .hasMessage("killed");
    assertThat(cache.stats().misses()).isEqualTo(CachedEncoder.SLICE);

    cached.dense("tiny-dense", texts, false, done -> {});
    assertThat(cache.stats().hits()).isEqualTo(CachedEncoder.SLICE);
    assertThat(cache.stats().misses()).isEqualTo(CachedEncoder.SLICE + 100);
  }

  @Test
  void repeatedTextsAreEncodedOnceAndCountedAsOneMiss() {
    EmbeddingCache cache = cache();
    cache.cached(encoder()).dense("tiny-dense", TEXTS, true, done -> {});

    assertThat(cache.stats().misses()).isEqualTo(5);
    assertThat(cache.stats().hits()).isZero();
    assertThat(cache.stats().bytesWritten())
        .isEqualTo(5L * (EmbeddingCache.ENTRY_HEADER_BYTES + 4 * TinyModels.HIDDEN));
  }

  @Test
  void sparseAndMultiVectorOutputsRoundTripBitForBit() {
    EncoderClient client = encoder();
    List<SparseVector> sparse =
        client.streamEncodeSparse("tiny-splade", TEXTS, false, 0, 64, done -> {}).stream()
            .map(SparseVector::of)
            .toList();
    List<float[][]> multi =
        client.streamEncodeMultiVector("tiny-colbert", TEXTS, true, 32, done -> {});
    EmbeddingCache cache = cache();
    cache.cached(client).sparse("tiny-splade", TEXTS, false, 0, done -> {});
    cache.cached(client).multiVector("tiny-colbert", TEXTS, true, done -> {});
    encodeCalls.set(0);

    List<SparseVector> cachedSparse =
        cache.cached(client).sparse("tiny-splade", TEXTS, false, 0, done -> {});
    List<float[][]> cachedMulti =
        cache.cached(client).multiVector("tiny-colbert", TEXTS, true, done -> {});

    assertThat(encodeCalls.get()).isZero();
    for (int i = 0; i < TEXTS.size(); i++) {
      assertThat(cachedSparse.get(i).indices()).isEqualTo(sparse.get(i).indices());
      assertThat(bits(cachedSparse.get(i).values())).isEqualTo(bits(sparse.get(i).values()));
      assertThat(cachedMulti.get(i).length).isEqualTo(multi.get(i).length);
      for (int t = 0; t < multi.get(i).length; t++) {
        assertThat(bits(cachedMulti.get(i)[t])).isEqualTo(bits(multi.get(i)[t]));
      }
    }
  }

  @Test
  void queryAndDocumentRolesAndEachKindAreSeparateKeySpaces() {
    EmbeddingCache cache = cache();
    CachedEncoder cached = cache.cached(encoder());
    cached.dense("tiny-dense", TEXTS, true, done -> {});

    cached.dense("tiny-dense", TEXTS, false, done -> {});

    assertThat(cache.stats().hits()).isZero();
    assertThat(cache.stats().misses()).isEqualTo(10);
  }

  @Test
  void aNewRevisionPromptOrMaxLengthMisses() throws Exception {
    List<UnaryOperator<ModelCard>> changes =
        List.of(
            c -> card(c, "rev-2", c.maxLength(), c.queryPrompt()),
            c -> card(c, c.revision(), c.maxLength(), "search: "),
            c -> card(c, c.revision(), 16, c.queryPrompt()));
    EmbeddingCache cache = cache();
    cache.cached(encoder()).dense("tiny-dense", TEXTS, true, done -> {});
    for (UnaryOperator<ModelCard> change : changes) {
      rewriteCard("tiny-dense", change);
      encodeCalls.set(0);

      cache.cached(encoder()).dense("tiny-dense", TEXTS, true, done -> {});

      assertThat(encodeCalls.get()).isEqualTo(1);
    }
    assertThat(cache.stats().hits()).isZero();
    assertThat(cache.stats().misses()).isEqualTo(4 * 5);
  }

  @Test
  void entriesSurviveClosingAndReopeningTheCache() {
    EncoderClient client = encoder();
    List<float[]> first;
    try (EmbeddingCache cache = EmbeddingCache.open(tmp.resolve("cache"))) {
      first = cache.cached(client).dense("tiny-dense", TEXTS, false, done -> {});
    }
    encodeCalls.set(0);

    EmbeddingCache reopened = cache();
    List<float[]> again = reopened.cached(client).dense("tiny-dense", TEXTS, false, done -> {});

    assertThat(encodeCalls.get()).isZero();
    assertThat(reopened.stats().hits()).isEqualTo(TEXTS.size());
    for (int i = 0; i < TEXTS.size(); i++) {
      assertThat(bits(again.get(i))).isEqualTo(bits(first.get(i)));
    }
  }

  @Test
  void progressCountsHitsAndEncodedTextsUpToTheTotal() {
    EmbeddingCache cache = cache();
    CachedEncoder cached = cache.cached(encoder());
    cached.dense("tiny-dense", TEXTS.subList(0, 3), false, done -> {});
    List<Integer> reported = new ArrayList<>();

    cached.dense("tiny-dense", TEXTS, false, reported::add);

    assertThat(reported).isSorted().last().isEqualTo(TEXTS.size());
    assertThat(cache.stats().hits()).isEqualTo(3 + 1);
  }

  @Test
  void benchColdVersusWarmEncodeOfATinyCorpus() {
    List<String> corpus = new ArrayList<>();
    for (int i = 0; i < 2_000; i++) {
      StringBuilder text = new StringBuilder();
      for (int w = 0; w < 24; w++) {
        text.append(TinyModels.WORDS.get((i * 7 + w * (i % 5 + 1)) % TinyModels.WORDS.size()))
            .append(' ');
      }
      corpus.add(text.append(i).toString());
    }
    EncoderClient client = encoder();
    client.streamEncodeDense("tiny-dense", corpus.subList(0, 64), false, 64, done -> {});
    EmbeddingCache cache = cache();

    long start = System.nanoTime();
    List<float[]> cold = cache.cached(client).dense("tiny-dense", corpus, false, done -> {});
    long coldNanos = System.nanoTime() - start;
    start = System.nanoTime();
    List<float[]> warm = cache.cached(client).dense("tiny-dense", corpus, false, done -> {});
    long warmNanos = System.nanoTime() - start;

    System.out.printf(
        "embedding cache bench: %d texts (%d distinct), tiny dense model: cold %.1f ms, warm %.1f ms (%.1fx)%n",
        corpus.size(),
        cache.stats().misses(),
        coldNanos / 1e6,
        warmNanos / 1e6,
        (double) coldNanos / warmNanos);
    assertThat(bits(warm.get(1_999))).isEqualTo(bits(cold.get(1_999)));
  }

  private static ModelCard card(ModelCard c, String revision, int maxLength, String queryPrompt) {
    return new ModelCard(
        c.id(),
        revision,
        c.source(),
        c.onnxFile(),
        c.tokenizerFile(),
        c.pooling(),
        c.normalize(),
        c.dimension(),
        c.matryoshkaDimensions(),
        maxLength,
        queryPrompt,
        c.documentPrompt(),
        c.outputKind(),
        c.totalParameters(),
        c.activeParameters(),
        c.resolvedSha());
  }

  private static int[] bits(float[] values) {
    int[] bits = new int[values.length];
    for (int i = 0; i < values.length; i++) {
      bits[i] = Float.floatToRawIntBits(values[i]);
    }
    return bits;
  }
}
