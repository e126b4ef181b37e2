package dev.tenbin.eval.retrieval;

import dev.tenbin.client.encoder.EncoderClient;
import dev.tenbin.client.index.IndexClient;
import dev.tenbin.eval.cache.CachedEncoder;
import dev.tenbin.eval.cache.EmbeddingCache;
import dev.tenbin.eval.result.Latency;
import dev.tenbin.eval.result.RunDiagnostics;
import dev.tenbin.proto.common.v1.SparseVector;
import dev.tenbin.proto.encoder.v1.TokenizedText;
import dev.tenbin.proto.index.v1.Document;
import dev.tenbin.proto.index.v1.Query;
import dev.tenbin.scoring.beir.BeirDataset;
import dev.tenbin.scoring.beir.CorpusDocument;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Learned-sparse retrieval through the services, every pruning setting from one ingest. With a
 * sparse model ({@code sparse:MODEL}) documents and queries come from its MLM head. Without one
 * ({@code sparse-bm25:MODEL}) the machinery still runs on real data: documents are BM25 weights (k1
 * 0.9, b 0.4, idf over the corpus) of the model tokenizer's token ids, and queries are the
 * LightRetriever token counts.
 */
public final class SparseRetrieval {
  private static final int CHUNK = 64;
  private final IndexClient index;
  private final EncoderClient encoder;
  private final CachedEncoder cached;
  private final int latencyConcurrency;
  private final int shards;
  private final int replicas;

  public SparseRetrieval(IndexClient index, EncoderClient encoder) {
    this(index, encoder, null, LatencyProbe.CONCURRENCY, 1, 1);
  }

  private SparseRetrieval(
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
  public SparseRetrieval withLatencyConcurrency(int value) {
    return new SparseRetrieval(index, encoder, cached, value, shards, replicas);
  }

  /**
   * The same retrieval over a collection of {@code value} shards: every document's impact score is
   * its own (no collection-wide statistic; the BM25-weighted vectors take their idf over the whole
   * corpus before ingest), so the merged rankings are one collection's, score for score and tie for
   * tie ({@link dev.tenbin.client.index.ShardedCollection}).
   */
  public SparseRetrieval withShards(int value) {
    return new SparseRetrieval(index, encoder, cached, latencyConcurrency, value, replicas);
  }

  /** The same retrieval with each shard kept as {@code value} replicas (the same rankings). */
  public SparseRetrieval withReplicas(int value) {
    return new SparseRetrieval(index, encoder, cached, latencyConcurrency, shards, value);
  }

  /**
   * The same retrieval encoding learned-sparse documents and queries through {@code cache} (the
   * BM25-weighted and LightRetriever paths run no model and are not cached).
   */
  public SparseRetrieval withEmbeddingCache(EmbeddingCache cache) {
    return new SparseRetrieval(
        index, encoder, cache.cached(encoder), latencyConcurrency, shards, replicas);
  }

  public Map<String, RetrievalResult> run(
      BeirDataset dataset,
      String model,
      boolean bm25Weights,
      int topK,
      List<SparseVariant> variants) {
    EncoderClient encoder = this.encoder.withDeadline(Duration.ofHours(2));
    long start = System.nanoTime();
    // Learned sparse retrieval holds its corpus and vectors in memory (its collections are small).
    List<CorpusDocument> corpus = dataset.corpus().toList();
    List<String> texts = new ArrayList<>();
    for (CorpusDocument doc : corpus) {
      texts.add(doc.titleAndText());
    }
    List<SparseVector> docVectors = new ArrayList<>();
    if (bm25Weights) {
      docVectors.addAll(bm25Vectors(encoder, model, texts));
    } else if (cached != null) {
      cached.sparse(model, texts, false, 0, done -> {}).forEach(v -> docVectors.add(v.toProto()));
    } else {
      docVectors.addAll(encoder.streamEncodeSparse(model, texts, false, 0, CHUNK, done -> {}));
    }
    long encoded = System.nanoTime();
    List<String> queryIds = dataset.evaluatedQueryIds();
    List<String> queryTexts = queryIds.stream().map(id -> dataset.queries().get(id)).toList();
    List<SparseVector> queryVectors =
        bm25Weights
            ? encoder.encodeLightSparse(model, queryTexts)
            : cached != null
                ? cached.sparse(model, queryTexts, true, 0, done -> {}).stream()
                    .map(dev.tenbin.eval.cache.SparseVector::toProto)
                    .toList()
                : encoder.encodeSparseVectors(model, queryTexts, true);
    long queriesEncoded = System.nanoTime();
    Latency encodeLatency =
        LatencyProbe.micros(queryTexts, text -> encodeOne(encoder, model, bm25Weights, text));
    int vocabulary = 1;
    for (List<SparseVector> list : List.of(docVectors, queryVectors)) {
      for (SparseVector vector : list) {
        for (int id : vector.getIndicesList()) {
          vocabulary = Math.max(vocabulary, id + 1);
        }
      }
    }
    // Indexing is the documents' encode and the ingest: the queries' encode and its latency probe
    // above are timed as query encoding, not counted again here.
    long ingestStart = System.nanoTime();
    try (IndexSession session =
        new IndexSession(
            index, IndexSession.Shape.sparse(vocabulary).withLayout(shards, replicas))) {
      List<Document> documents = new ArrayList<>();
      for (int i = 0; i < texts.size(); i++) {
        CorpusDocument doc = corpus.get(i);
        documents.add(
            Document.newBuilder()
                .setId(doc.id())
                .setTitle(doc.title())
                .setText(doc.text())
                .setSparse(docVectors.get(i))
                .build());
      }
      session.ingest(documents);
      long indexed = System.nanoTime();
      List<Query> queries = new ArrayList<>();
      for (int i = 0; i < queryIds.size(); i++) {
        queries.add(
            Query.newBuilder().setId(queryIds.get(i)).setSparse(queryVectors.get(i)).build());
      }
      Map<String, RetrievalResult> results = new LinkedHashMap<>();
      for (SparseVariant variant : variants) {
        long searchStart = System.nanoTime();
        var rankings = session.searchSparse(queries, variant.options(), topK);
        RunDiagnostics diagnostics =
            RunDiagnostics.builder()
                .sparseDims(variant.maxQueryDims(), variant.maxDocumentDims())
                .latencies(
                    encodeLatency,
                    LatencyProbe.micros(
                        queries,
                        query -> session.searchSparse(List.of(query), variant.options(), topK)))
                .concurrentLatency(
                    LatencyProbe.concurrent(
                        queryIds.size(),
                        latencyConcurrency,
                        i ->
                            session.searchSparse(
                                List.of(
                                    Query.newBuilder()
                                        .setId(queryIds.get(i))
                                        .setSparse(
                                            encodeOne(
                                                encoder, model, bm25Weights, queryTexts.get(i)))
                                        .build()),
                                variant.options(),
                                topK)))
                .build();
        results.put(
            variant.name(),
            new RetrievalResult(
                rankings,
                (encoded - start) + (indexed - ingestStart),
                System.nanoTime() - searchStart,
                texts.size(),
                encoded - start,
                queriesEncoded - encoded,
                diagnostics));
      }
      return results;
    }
  }

  /**
   * One query's vector straight from the encoder (no cache): LightRetriever token counts with BM25
   * weights, else the sparse model's query vector.
   */
  private static SparseVector encodeOne(
      EncoderClient encoder, String model, boolean bm25Weights, String text) {
    return (bm25Weights
            ? encoder.encodeLightSparse(model, List.of(text))
            : encoder.encodeSparseVectors(model, List.of(text), true))
        .getFirst();
  }

  /** BM25 weights over tokenizer ids, special tokens ([CLS], [SEP], <s>, ...) left out. */
  private static List<SparseVector> bm25Vectors(
      EncoderClient encoder, String model, List<String> texts) {
    List<Map<Integer, Integer>> counts = new ArrayList<>();
    for (int from = 0; from < texts.size(); from += CHUNK) {
      for (TokenizedText text :
          encoder.tokenizedTexts(
              model, texts.subList(from, Math.min(texts.size(), from + CHUNK)), false)) {
        Map<Integer, Integer> tf = new TreeMap<>();
        for (int i = 0; i < text.getIdsCount(); i++) {
          String token = text.getTokens(i);
          boolean special =
              (token.startsWith("[") && token.endsWith("]"))
                  || (token.startsWith("<") && token.endsWith(">"));
          if (!special) {
            tf.merge(text.getIds(i), 1, Integer::sum);
          }
        }
        counts.add(tf);
      }
    }
    Map<Integer, Integer> df = new HashMap<>();
    double totalLength = 0;
    for (Map<Integer, Integer> tf : counts) {
      tf.keySet().forEach(t -> df.merge(t, 1, Integer::sum));
      totalLength += tf.values().stream().mapToInt(Integer::intValue).sum();
    }
    double n = counts.size();
    double avgdl = Math.max(1, totalLength / n);
    List<SparseVector> vectors = new ArrayList<>();
    for (Map<Integer, Integer> tf : counts) {
      double dl = tf.values().stream().mapToInt(Integer::intValue).sum();
      SparseVector.Builder vector = SparseVector.newBuilder();
      tf.forEach(
          (term, freq) -> {
            double idf = Math.log(1 + (n - df.get(term) + 0.5) / (df.get(term) + 0.5));
            double weight = idf * freq / (freq + 0.9 * (1 - 0.4 + 0.4 * dl / avgdl));
            vector.addIndices(term).addValues((float) weight);
          });
      vectors.add(vector.build());
    }
    return vectors;
  }
}
