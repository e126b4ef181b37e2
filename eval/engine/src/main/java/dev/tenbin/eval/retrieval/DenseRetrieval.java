package dev.tenbin.eval.retrieval;

import dev.tenbin.client.encoder.EncoderClient;
import dev.tenbin.client.index.IndexClient;
import dev.tenbin.eval.cache.CachedEncoder;
import dev.tenbin.eval.cache.EmbeddingCache;
import dev.tenbin.eval.cache.SliceEncoding;
import dev.tenbin.eval.result.Int8CalibrationFacts;
import dev.tenbin.eval.result.Latency;
import dev.tenbin.eval.result.RunDiagnostics;
import dev.tenbin.proto.common.v1.DenseVector;
import dev.tenbin.proto.common.v1.Similarity;
import dev.tenbin.proto.index.v1.Family;
import dev.tenbin.proto.index.v1.Query;
import dev.tenbin.scoring.beir.BeirDataset;
import dev.tenbin.scoring.beir.Corpus;
import dev.tenbin.scoring.beir.CorpusDocument;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import java.util.function.IntConsumer;

/**
 * Dense retrieval through the services: documents (title + " " + text) encoded by the encoder
 * service with the card's document prompt, stored in the index service, queries encoded with the
 * query prompt (or, for LightRetriever, looked up with no inference), exact cosine top-k.
 */
public final class DenseRetrieval {
  /** How queries become vectors. */
  public enum QueryEncoding {
    FULL,
    LIGHT
  }

  private final IndexClient index;
  private final EncoderClient encoder;
  private final EncodeProgress progress;
  private final CachedEncoder cached;
  private final boolean probeLatency;
  private final int latencyConcurrency;
  private final int shards;
  private final int replicas;
  private final int slicesInFlight;

  public DenseRetrieval(IndexClient index, EncoderClient encoder, PrintWriter progress) {
    this(index, encoder, EncodeProgress.printingTo(progress));
  }

  public DenseRetrieval(IndexClient index, EncoderClient encoder, EncodeProgress progress) {
    this(index, encoder, progress, null, true, LatencyProbe.CONCURRENCY, 1, 1, 1);
  }

  private DenseRetrieval(
      IndexClient index,
      EncoderClient encoder,
      EncodeProgress progress,
      CachedEncoder cached,
      boolean probeLatency,
      int latencyConcurrency,
      int shards,
      int replicas,
      int slicesInFlight) {
    this.index = index;
    this.encoder = encoder;
    this.progress = progress;
    this.cached = cached;
    this.probeLatency = probeLatency;
    this.latencyConcurrency = latencyConcurrency;
    this.shards = shards;
    this.replicas = replicas;
    this.slicesInFlight = slicesInFlight;
  }

  /**
   * The same retrieval over a collection of {@code value} shards (exact searches give the same
   * rankings, scores and ties as one collection: {@link
   * dev.tenbin.client.index.ShardedCollection}).
   */
  public DenseRetrieval withShards(int value) {
    return new DenseRetrieval(
        index,
        encoder,
        progress,
        cached,
        probeLatency,
        latencyConcurrency,
        value,
        replicas,
        slicesInFlight);
  }

  /**
   * The same retrieval with each shard kept as {@code value} replicas on distinct index pods (the
   * same rankings; a lost pod is routed around while each shard keeps a replica).
   */
  public DenseRetrieval withReplicas(int value) {
    return new DenseRetrieval(
        index,
        encoder,
        progress,
        cached,
        probeLatency,
        latencyConcurrency,
        shards,
        value,
        slicesInFlight);
  }

  /**
   * The same retrieval encoding up to {@code value} corpus slices at once, one per encoder replica:
   * each slice is one streamed call, which a balanced channel places on a replica of its own, and
   * through the embedding cache each slice is stored and recorded on its own as it finishes. The
   * boundaries, each slice's vectors and the rankings are those of one slice at a time.
   */
  public DenseRetrieval withSlicesInFlight(int value) {
    if (value < 1) {
      throw new IllegalArgumentException("slices in flight must be at least 1, got " + value);
    }
    return new DenseRetrieval(
        index,
        encoder,
        progress,
        cached,
        probeLatency,
        latencyConcurrency,
        shards,
        replicas,
        value);
  }

  /** The same retrieval encoding documents and full queries through {@code cache}. */
  public DenseRetrieval withEmbeddingCache(EmbeddingCache cache) {
    return new DenseRetrieval(
        index,
        encoder,
        progress,
        cache.cached(encoder),
        probeLatency,
        latencyConcurrency,
        shards,
        replicas,
        slicesInFlight);
  }

  /** The same retrieval probing latency with {@code value} queries in flight as well. */
  public DenseRetrieval withLatencyConcurrency(int value) {
    return new DenseRetrieval(
        index, encoder, progress, cached, probeLatency, value, shards, replicas, slicesInFlight);
  }

  /**
   * The same retrieval without the single-query latency probe (for rankings that are only an input,
   * such as candidate sets).
   */
  public DenseRetrieval withoutLatencyProbe() {
    return new DenseRetrieval(
        index,
        encoder,
        progress,
        cached,
        false,
        latencyConcurrency,
        shards,
        replicas,
        slicesInFlight);
  }

  public RetrievalResult run(
      BeirDataset dataset,
      String modelId,
      QueryEncoding queryEncoding,
      Similarity similarity,
      int topK) {
    return run(
            dataset, modelId, queryEncoding, List.of(similarity), topK, List.of(DenseVariant.BASE))
        .get(key(DenseVariant.BASE, similarity));
  }

  /** The result key of a variant searched with a similarity. */
  public static String key(DenseVariant variant, Similarity similarity) {
    return variant.name() + "|" + similarity.name();
  }

  /** One encode, every variant and similarity searched from it: {@link #key} to result. */
  public java.util.Map<String, RetrievalResult> run(
      BeirDataset dataset,
      String modelId,
      QueryEncoding queryEncoding,
      List<Similarity> similarities,
      int topK,
      List<DenseVariant> variants) {
    long start = System.nanoTime();
    int total = dataset.corpus().size();
    String what = "encoding documents with " + modelId;
    int sliceCount = CorpusDocuments.sliceCount(total);
    int[] encodedSoFar = {0};
    int[] readBack = {0};
    // The corpus is encoded a slice at a time as the ingest takes it (up to slicesInFlight at
    // once, spread over the encoder's replicas): the vectors of those slices and the batches in
    // flight are in memory, never the whole corpus's. Through the embedding cache a slice is also
    // the unit of resume: the slices an interrupted run finished, in whatever order, are read
    // back, with the encode time measured when they were encoded.
    try (Corpus.Walk walk = dataset.corpus().walk()) {
      CorpusDocuments.Encoded<float[]> documents =
          new CorpusDocuments.Encoded<>(
              walk,
              CorpusDocuments.SLICE,
              slicesInFlight,
              sliceEncoder(modelId, what, total),
              (index, slice, encoded) -> {
                if (encoded.encodedBefore()) {
                  readBack[0]++;
                } else if (readBack[0] > 0 && readBack[0] == index) {
                  progress.note(resumeNote(what, index, sliceCount, encodedSoFar[0]));
                }
                encodedSoFar[0] += slice.size();
                if (encodedSoFar[0] == total && readBack[0] == sliceCount) {
                  progress.note(
                      what + ": all " + sliceCount + " slices were encoded before, read back");
                }
              },
              (document, vector) -> document.setDense(proto(vector)));
      int dimension = documents.first().length;
      // Through the embedding cache a run again ingests the same vectors (every document
      // ingested belongs to a slice the cache stored whole), so the work item's collection
      // resumes after the slices an interrupted run committed; without it, it is made anew.
      try (IndexSession session =
          new IndexSession(
              index,
              IndexSession.Shape.dense(dimension).withLayout(shards, replicas),
              cached == null ? null : "dense " + modelId + " " + total)) {
        try {
          session.ingest(documents, total);
        } finally {
          // an ingest that failed leaves no slice still encoding behind it
          documents.awaitInFlight();
        }
        long indexed = System.nanoTime();
        // A slice read back counts with the encode time measured when it was encoded, not with
        // the time this run took to read it.
        long indexNanos = indexed - start - documents.encodeWallNanos() + documents.encodeNanos();
        return searchAll(
            session,
            dataset,
            modelId,
            queryEncoding,
            similarities,
            topK,
            variants,
            dimension,
            total,
            documents.encodeNanos(),
            indexNanos,
            indexed);
      }
    }
  }

  /**
   * What a shard's encode share of one corpus came to ({@link #encodeShare}).
   *
   * @param slices the corpus's slices
   * @param shares the slices that are this shard's
   * @param encoded those this call encoded (the others were recorded in the cache before)
   */
  public record Share(int slices, int shares, int encoded) {}

  /**
   * Encodes shard {@code shard}'s share of the corpus for the process whose work item encodes it
   * with {@code modelId}, when a job runs as {@code shards} processes: the slices ({@link
   * CorpusDocuments#SLICE} documents, numbered from 0 in corpus order) whose number leaves {@code
   * shard} when divided by {@code shards}, each encoded through the embedding cache and recorded
   * there as {@link #run} would encode it (same texts, same cut, so the same slice whichever
   * process encodes it; up to as many slices at once as {@link #run} encodes). The work item's own
   * run then reads those slices back, with the encode time measured here, and encodes only the ones
   * not yet recorded. A slice recorded before is read back, not encoded again. Nothing is encoded
   * without an embedding cache or for a corpus of fewer slices than shards (it is left to its work
   * item).
   */
  public Share encodeShare(BeirDataset dataset, String modelId, int shard, int shards) {
    if (shard < 0 || shard >= shards) {
      throw new IllegalArgumentException("shard " + shard + " of " + shards);
    }
    int total = dataset.corpus().size();
    int sliceCount = CorpusDocuments.sliceCount(total);
    if (cached == null || shards < 2 || sliceCount < shards) {
      return new Share(sliceCount, 0, 0);
    }
    int shares = CorpusDocuments.shareSlices(total, shard, shards);
    long shareDocuments = CorpusDocuments.shareDocuments(total, shard, shards);
    // The share's slices go through the same encode as the work item's (up to slicesInFlight at
    // once) and are settled there; the index takes none of their documents.
    try (Corpus.Walk walk = dataset.corpus().walk()) {
      CorpusDocuments.Encoded<float[]> share =
          new CorpusDocuments.Encoded<>(
              CorpusDocuments.shareOf(walk, shard, shards),
              CorpusDocuments.SLICE,
              slicesInFlight,
              sliceEncoder(
                  modelId,
                  "encoding this shard's slices of the documents with " + modelId,
                  shareDocuments),
              (index, slice, encoded) -> {},
              (document, vector) -> document);
      try {
        share.settleAll();
      } finally {
        share.awaitInFlight();
      }
      return new Share(sliceCount, shares, share.slices() - share.slicesEncodedBefore());
    }
  }

  /**
   * How a corpus slice is encoded with {@code modelId}: its documents' title and text, through the
   * embedding cache when there is one (which reads back a slice it stored before), else straight
   * from the encoder; progress is reported as {@code what}, counted over all slices together
   * against {@code total} documents (slices may be encoded at once, on several threads).
   */
  private Function<List<CorpusDocument>, SliceEncoding<float[]>> sliceEncoder(
      String modelId, String what, long total) {
    AtomicLong documentsDone = new AtomicLong();
    return slice -> {
      List<String> texts = new ArrayList<>(slice.size());
      slice.forEach(doc -> texts.add(doc.titleAndText()));
      int[] reported = {0};
      IntConsumer report =
          done -> {
            long sum = documentsDone.addAndGet(done - reported[0]);
            reported[0] = done;
            synchronized (progress) {
              progress.update(what, sum, total);
            }
          };
      if (cached != null) {
        return cached.denseSlice(modelId, texts, report);
      }
      long sliceStart = System.nanoTime();
      List<float[]> vectors = encoder.streamEncodeDense(modelId, texts, false, 64, report);
      return new SliceEncoding<>(vectors, System.nanoTime() - sliceStart, false);
    };
  }

  /** The line that says where an interrupted encode resumes. */
  static String resumeNote(String what, int slice, int slices, int documents) {
    return String.format(
        java.util.Locale.ROOT,
        "%s: resuming at slice %d of %d; %d slices (%d documents) were encoded before, read back",
        what,
        slice + 1,
        slices,
        slice,
        documents);
  }

  private java.util.Map<String, RetrievalResult> searchAll(
      IndexSession session,
      BeirDataset dataset,
      String modelId,
      QueryEncoding queryEncoding,
      List<Similarity> similarities,
      int topK,
      List<DenseVariant> variants,
      int dimension,
      int total,
      long encodeNanos,
      long indexNanos,
      long indexed) {
    {
      List<String> queryIds = dataset.evaluatedQueryIds();
      List<String> queryTexts = new ArrayList<>(queryIds.size());
      for (String id : queryIds) {
        queryTexts.add(dataset.queries().get(id));
      }
      String queriesWhat =
          (queryEncoding == QueryEncoding.LIGHT
                  ? "looking up queries with "
                  : "encoding queries with ")
              + modelId;
      int queryCount = queryTexts.size();
      progress.update(queriesWhat, 0, queryCount);
      List<float[]> queryVectors =
          queryEncoding == QueryEncoding.LIGHT
              ? encoder.encodeLightDense(modelId, queryTexts, 0)
              : cached != null
                  ? cached.dense(
                      modelId,
                      queryTexts,
                      true,
                      done -> progress.update(queriesWhat, done, queryCount))
                  : encoder.encodeDense(modelId, queryTexts, true, 0);
      progress.update(queriesWhat, queryCount, queryCount);
      long queriesEncoded = System.nanoTime();
      List<Query> queries = queries(queryIds, queryVectors);
      Latency encodeLatency =
          !probeLatency
              ? null
              : LatencyProbe.micros(queryTexts, text -> encodeOne(modelId, queryEncoding, 0, text));
      java.util.Map<String, RetrievalResult> results = new java.util.LinkedHashMap<>();
      java.util.Map<Integer, List<Query>> narrowLightQueries = new java.util.HashMap<>();
      for (Similarity similarity : similarities)
        for (DenseVariant variant : variants) {
          // Between two variants no write runs: a replica lost during the last one is rebuilt from
          // its peer and readmitted once its digest matches (no call at all while none is lost;
          // those lost during the ingest were repaired when it committed).
          session.repairLostReplicas();
          long narrowStart = System.nanoTime();
          List<Query> variantQueries =
              lightAtWidth(queryEncoding, variant, dimension)
                  ? narrowLightQueries.computeIfAbsent(
                      variant.truncate(),
                      width ->
                          queries(queryIds, encoder.encodeLightDense(modelId, queryTexts, width)))
                  : queries;
          long narrowNanos = System.nanoTime() - narrowStart;
          // The index builds what the variant scans (normalised or truncated vectors, int8
          // calibration and codes, sign bits, HNSW graph) on its first search: one query builds
          // it, timed as the variant's own indexing, so the timed search below is searching only.
          long variantIndexNanos = 0;
          if (!variantQueries.isEmpty()) {
            long buildStart = System.nanoTime();
            session.searchWithStats(
                Family.FAMILY_DENSE,
                variantQueries.subList(0, 1),
                variant.options(similarity),
                topK);
            variantIndexNanos = System.nanoTime() - buildStart;
          }
          long searchStart = System.nanoTime();
          var outcome =
              session.searchWithStats(
                  Family.FAMILY_DENSE, variantQueries, variant.options(similarity), topK);
          long searched = System.nanoTime();
          RunDiagnostics.Builder diagnostics = RunDiagnostics.builder();
          if (outcome.storedBytesPerVector() > 0) {
            diagnostics.vectorBytes(outcome.bytesPerVector(), outcome.storedBytesPerVector());
          } else {
            // An index service from before stored bytes were reported.
            diagnostics.bytesPerVector(outcome.bytesPerVector());
          }
          if (probeLatency) {
            diagnostics.latencies(
                encodeLatency,
                LatencyProbe.micros(
                    queries,
                    query ->
                        session.search(
                            Family.FAMILY_DENSE,
                            List.of(query),
                            variant.options(similarity),
                            topK)));
            // A query's whole path: its vector as the variant's queries got theirs, its search.
            int width = lightAtWidth(queryEncoding, variant, dimension) ? variant.truncate() : 0;
            diagnostics.concurrentLatency(
                LatencyProbe.concurrent(
                    queryIds.size(),
                    latencyConcurrency,
                    i ->
                        session.search(
                            Family.FAMILY_DENSE,
                            queries(
                                List.of(queryIds.get(i)),
                                List.of(
                                    encodeOne(modelId, queryEncoding, width, queryTexts.get(i)))),
                            variant.options(similarity),
                            topK)));
          }
          diagnostics.similarity(similarity == Similarity.SIMILARITY_DOT ? "dot" : "cosine");
          if (variant.approximate()) {
            diagnostics.hnswRecallVsExact(outcome.approximateRecall());
          }
          if (variant.quantization() == dev.tenbin.proto.index.v1.Quantization.QUANTIZATION_INT8) {
            diagnostics.int8QueryClipRate(
                share(outcome.clippedQueryValues(), outcome.queryValues()));
            if (outcome.int8Calibration() != null) {
              diagnostics.int8Calibration(calibration(outcome));
            }
          }
          results.put(
              key(variant, similarity),
              new RetrievalResult(
                  outcome.rankings(),
                  indexNanos,
                  searched - searchStart,
                  total,
                  encodeNanos,
                  queriesEncoded - indexed + narrowNanos,
                  diagnostics.build(),
                  variantIndexNanos));
        }
      return results;
    }
  }

  /**
   * Whether LightRetriever queries of {@code variant} come from the model's width-N token table
   * (each token's row truncated and normalised at N, the query their mean) rather than from the
   * full-width mean truncated afterwards: for every truncation below the documents' width.
   */
  static boolean lightAtWidth(QueryEncoding encoding, DenseVariant variant, int dimension) {
    return encoding == QueryEncoding.LIGHT
        && variant.truncate() > 0
        && variant.truncate() < dimension;
  }

  /**
   * One query's vector straight from the encoder (no cache): encoded with the query prompt, or a
   * LightRetriever lookup in the token table of {@code width} (0: the model's full width).
   */
  private float[] encodeOne(String modelId, QueryEncoding encoding, int width, String text) {
    return (encoding == QueryEncoding.LIGHT
            ? encoder.encodeLightDense(modelId, List.of(text), width)
            : encoder.encodeDense(modelId, List.of(text), true, 0))
        .getFirst();
  }

  private static double share(long part, long whole) {
    return whole == 0 ? 0.0 : (double) part / whole;
  }

  /** The int8 calibration of a search, with its clip and saturation rates. */
  static Int8CalibrationFacts calibration(IndexSession.Outcome outcome) {
    return new Int8CalibrationFacts(
        outcome.int8Calibration().getMinimumsList(),
        outcome.int8Calibration().getMaximumsList(),
        0.0,
        share(outcome.saturatedDocumentValues(), outcome.documentValues()),
        share(outcome.clippedQueryValues(), outcome.queryValues()),
        share(outcome.saturatedQueryValues(), outcome.queryValues()));
  }

  private static List<Query> queries(List<String> queryIds, List<float[]> vectors) {
    List<Query> queries = new ArrayList<>(queryIds.size());
    for (int i = 0; i < queryIds.size(); i++) {
      queries.add(
          Query.newBuilder().setId(queryIds.get(i)).setDense(proto(vectors.get(i))).build());
    }
    return queries;
  }

  private static DenseVector proto(float[] vector) {
    DenseVector.Builder out = DenseVector.newBuilder();
    for (float v : vector) {
      out.addValues(v);
    }
    return out.build();
  }
}
