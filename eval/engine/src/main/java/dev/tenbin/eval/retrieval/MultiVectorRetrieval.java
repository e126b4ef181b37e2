package dev.tenbin.eval.retrieval;

import dev.tenbin.client.encoder.EncoderClient;
import dev.tenbin.client.index.IndexClient;
import dev.tenbin.eval.cache.CachedEncoder;
import dev.tenbin.eval.cache.EmbeddingCache;
import dev.tenbin.eval.result.Latency;
import dev.tenbin.eval.result.RunDiagnostics;
import dev.tenbin.proto.common.v1.MultiVector;
import dev.tenbin.proto.index.v1.Document;
import dev.tenbin.proto.index.v1.Family;
import dev.tenbin.proto.index.v1.Query;
import dev.tenbin.scoring.beir.BeirDataset;
import dev.tenbin.scoring.beir.CorpusDocument;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Late-interaction retrieval: token vectors from the encoder service, exact MaxSim in the index.
 */
public final class MultiVectorRetrieval {
  private final IndexClient index;
  private final EncoderClient encoder;
  private final CachedEncoder cached;
  private final int latencyConcurrency;
  private final int shards;
  private final int replicas;

  public MultiVectorRetrieval(IndexClient index, EncoderClient encoder) {
    this(index, encoder, null, LatencyProbe.CONCURRENCY, 1, 1);
  }

  private MultiVectorRetrieval(
      IndexClient index,
      EncoderClient encoder,
      CachedEncoder cached,
      int latencyConcurrency,
      int shards,
      int replicas) {
    this.index = index;
    this.encoder = encoder;
    this.cached = cached;
    this.latencyConcurrency = latencyConcurrency;
    this.shards = shards;
    this.replicas = replicas;
  }

  /** The same retrieval probing latency with {@code value} queries in flight as well. */
  public MultiVectorRetrieval withLatencyConcurrency(int value) {
    return new MultiVectorRetrieval(index, encoder, cached, value, shards, replicas);
  }

  /**
   * The same retrieval over a collection of {@code value} shards: MaxSim scores every document from
   * its own token vectors, so the merged rankings are one collection's, score for score and tie for
   * tie ({@link dev.tenbin.client.index.ShardedCollection}).
   */
  public MultiVectorRetrieval withShards(int value) {
    return new MultiVectorRetrieval(index, encoder, cached, latencyConcurrency, value, replicas);
  }

  /** The same retrieval with each shard kept as {@code value} replicas (the same rankings). */
  public MultiVectorRetrieval withReplicas(int value) {
    return new MultiVectorRetrieval(index, encoder, cached, latencyConcurrency, shards, value);
  }

  /** The same retrieval encoding documents and queries through {@code cache}. */
  public MultiVectorRetrieval withEmbeddingCache(EmbeddingCache cache) {
    return new MultiVectorRetrieval(
        index, encoder, cache.cached(encoder), latencyConcurrency, shards, replicas);
  }

  public RetrievalResult run(BeirDataset dataset, String model, int topK) {
    EncoderClient encoder = this.encoder.withDeadline(Duration.ofHours(2));
    long start = System.nanoTime();
    // Late interaction holds its corpus and vectors in memory (its collections are small).
    List<CorpusDocument> corpus = dataset.corpus().toList();
    List<String> texts = corpus.stream().map(CorpusDocument::titleAndText).toList();
    List<MultiVector> docVectors = new ArrayList<>();
    if (cached != null) {
      cached
          .multiVector(model, texts, false, done -> {})
          .forEach(rows -> docVectors.add(proto(rows)));
    } else {
      docVectors.addAll(encoder.streamEncodeMultiVectors(model, texts, false, 32, done -> {}));
    }
    long encoded = System.nanoTime();
    List<String> queryIds = dataset.evaluatedQueryIds();
    List<String> queryTexts = queryIds.stream().map(id -> dataset.queries().get(id)).toList();
    List<MultiVector> queryVectors =
        cached != null
            ? cached.multiVector(model, queryTexts, true, done -> {}).stream()
                .map(MultiVectorRetrieval::proto)
                .toList()
            : encoder.encodeMultiVectors(model, queryTexts, true);
    long queriesEncoded = System.nanoTime();
    int dimension = docVectors.getFirst().getDimension();
    // Indexing is the documents' encode and the ingest, not the queries' encode above.
    long ingestStart = System.nanoTime();
    try (IndexSession session =
        new IndexSession(
            index, IndexSession.Shape.multiVector(dimension).withLayout(shards, replicas))) {
      List<Document> documents = new ArrayList<>();
      for (int i = 0; i < texts.size(); i++) {
        CorpusDocument doc = corpus.get(i);
        documents.add(
            Document.newBuilder()
                .setId(doc.id())
                .setTitle(doc.title())
                .setText(doc.text())
                .setMultiVector(docVectors.get(i))
                .build());
      }
      session.ingest(documents);
      long indexed = System.nanoTime();
      List<Query> queries = new ArrayList<>();
      for (int i = 0; i < queryIds.size(); i++) {
        queries.add(
            Query.newBuilder().setId(queryIds.get(i)).setMultiVector(queryVectors.get(i)).build());
      }
      var rankings = session.search(Family.FAMILY_MULTIVECTOR, queries, null, topK);
      long searched = System.nanoTime();
      Latency encodeLatency =
          LatencyProbe.micros(
              queryTexts, text -> encoder.encodeMultiVectors(model, List.of(text), true));
      Latency searchLatency =
          LatencyProbe.micros(
              queries,
              query -> session.search(Family.FAMILY_MULTIVECTOR, List.of(query), null, topK));
      var concurrentLatency =
          LatencyProbe.concurrent(
              queryIds.size(),
              latencyConcurrency,
              i ->
                  session.search(
                      Family.FAMILY_MULTIVECTOR,
                      List.of(
                          Query.newBuilder()
                              .setId(queryIds.get(i))
                              .setMultiVector(
                                  encoder
                                      .encodeMultiVectors(model, List.of(queryTexts.get(i)), true)
                                      .getFirst())
                              .build()),
                      null,
                      topK));
      return new RetrievalResult(
          rankings,
          (encoded - start) + (indexed - ingestStart),
          searched - indexed,
          texts.size(),
          encoded - start,
          queriesEncoded - encoded,
          RunDiagnostics.builder()
              .bytesPerToken(4L * dimension)
              .latencies(encodeLatency, searchLatency)
              .concurrentLatency(concurrentLatency)
              .build());
    }
  }

  private static MultiVector proto(float[][] rows) {
    int dimension = rows.length == 0 ? 0 : rows[0].length;
    MultiVector.Builder out =
        MultiVector.newBuilder().setTokenCount(rows.length).setDimension(dimension);
    for (float[] row : rows) {
      for (float value : row) {
        out.addValues(value);
      }
    }
    return out.build();
  }
}
