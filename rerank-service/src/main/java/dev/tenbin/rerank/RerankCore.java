package dev.tenbin.rerank;

import dev.tenbin.client.index.ShardedCollection;
import dev.tenbin.core.Cancellation;
import dev.tenbin.core.InvalidInputException;
import dev.tenbin.core.OrderedShutdown;
import dev.tenbin.rerank.bi.BiEncoderReranker;
import dev.tenbin.rerank.cross.RerankerRegistry;
import dev.tenbin.rerank.cross.ScorePrecision;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Supplier;

/**
 * The rerank service's plain-Java core: validates a candidate set, scores it with a cross-encoder
 * or (for {@code dense:MODEL}) a bi-encoder through the encoder service, and orders it by score
 * descending, then doc id ascending.
 *
 * <p>Registered with the process's {@link OrderedShutdown}, so SIGTERM or {@code System.exit}
 * closes its cross-encoders (each finishing its running pass) before the process ends. Meter
 * ({@link #bindTo}): {@code tenbin.rerank.models.loaded}.
 */
public final class RerankCore implements AutoCloseable, MeterBinder {
  /** A candidate document. */
  public record Candidate(String docId, String text) {}

  /** A reranked document. */
  public record Scored(String docId, float score) {}

  /** The reranked list and how long scoring took. */
  public record Reranked(List<Scored> documents, long inferenceNanos) {}

  private final RerankerRegistry crossEncoders;
  private final Supplier<BiEncoderReranker> biEncoders;
  private final int maxPairs;
  private final CandidateTexts indexDocuments;
  private final OrderedShutdown.Registration shutdown;

  /** A core without an index service: candidates must come with their text. */
  public RerankCore(
      RerankerRegistry crossEncoders, Supplier<BiEncoderReranker> biEncoders, int maxPairs) {
    this(crossEncoders, biEncoders, maxPairs, CandidateTexts.none());
  }

  /** A core that also takes candidates by id, their text fetched through {@code indexDocuments}. */
  public RerankCore(
      RerankerRegistry crossEncoders,
      Supplier<BiEncoderReranker> biEncoders,
      int maxPairs,
      CandidateTexts indexDocuments) {
    this.crossEncoders = crossEncoders;
    this.biEncoders = biEncoders;
    this.maxPairs = maxPairs;
    this.indexDocuments = indexDocuments;
    this.shutdown = OrderedShutdown.register(OrderedShutdown.Stage.WORKERS, "rerank core", this);
  }

  @Override
  public void bindTo(MeterRegistry registry) {
    Gauge.builder("tenbin.rerank.models.loaded", crossEncoders, cross -> cross.loadedIds().size())
        .description("Cross-encoders loaded in the rerank service now")
        .register(registry);
  }

  public RerankerRegistry crossEncoders() {
    return crossEncoders;
  }

  /**
   * Candidates of an index-service collection by id, their text fetched and joined as inline
   * candidates' text: {@code ids} are checked first (non-empty, unique, at most the request limit),
   * naming {@code index_documents.ids[i]}, so nothing is fetched for a request {@link #rerank}
   * would refuse.
   */
  public List<Candidate> candidatesById(String collection, List<String> ids) {
    return candidatesById(collection, 1, 1, ids);
  }

  /**
   * {@link #candidatesById(String, List)} of a collection split into {@code shards} shards of
   * {@code replicas} replicas each (0 or 1: one), each id fetched from its shard ({@code
   * ShardedCollection}); more than {@value ShardedCollection#MAX_SHARDS} shards or {@value
   * ShardedCollection#MAX_REPLICAS} replicas is INVALID_ARGUMENT naming {@code
   * index_documents.shards} or {@code index_documents.replicas}.
   */
  public List<Candidate> candidatesById(
      String collection, int shards, int replicas, List<String> ids) {
    if (shards < 0 || shards > ShardedCollection.MAX_SHARDS) {
      throw new InvalidInputException(
          "index_documents.shards",
          "a collection has 0 or 1 (one collection) up to "
              + ShardedCollection.MAX_SHARDS
              + " shards, got "
              + shards);
    }
    if (replicas < 0 || replicas > ShardedCollection.MAX_REPLICAS) {
      throw new InvalidInputException(
          "index_documents.replicas",
          "a shard has 0 or 1 (one copy) up to "
              + ShardedCollection.MAX_REPLICAS
              + " replicas, got "
              + replicas);
    }
    if (ids.isEmpty()) {
      throw new InvalidInputException("index_documents.ids", "at least one id is required");
    }
    if (ids.size() > maxPairs) {
      throw new InvalidInputException(
          "index_documents.ids",
          "at most " + maxPairs + " candidates per request, got " + ids.size());
    }
    Set<String> seen = new HashSet<>();
    for (int i = 0; i < ids.size(); i++) {
      if (ids.get(i).isBlank() || !seen.add(ids.get(i))) {
        throw new InvalidInputException(
            "index_documents.ids[" + i + "]", "candidate ids must be non-empty and unique");
      }
    }
    List<Candidate> candidates =
        indexDocuments.fetch(collection, Math.max(1, shards), Math.max(1, replicas), ids);
    for (int i = 0; i < candidates.size(); i++) {
      if (candidates.get(i).text().isBlank()) {
        throw new InvalidInputException(
            "index_documents.ids[" + i + "]",
            "document " + ids.get(i) + " has no stored title or text to score");
      }
    }
    return candidates;
  }

  /** The retrieval-model rerankers, through the encoder service (connected on first use). */
  public BiEncoderReranker retrievalModels() {
    return biEncoders.get();
  }

  /**
   * Loads the cross-encoders {@code ids} now and keeps them loaded (never unloaded for idleness),
   * each warmed up with one scored pair, so that the first real request is not the slow one.
   *
   * @throws dev.tenbin.core.TenbinException naming {@code preload} for a reranker that may not or
   *     cannot be loaded
   */
  public void preload(List<String> ids) {
    for (String id : ids) {
      try {
        crossEncoders.pin(id);
        rerank(
            id,
            "what does Tenbin warm up?",
            List.of(
                new Candidate("warm-up", "Tenbin warms this reranker up before its first use.")),
            ScorePrecision.FP32,
            1,
            Cancellation.NEVER);
      } catch (dev.tenbin.core.TenbinException e) {
        throw e.within("preload");
      }
    }
  }

  public Reranked rerank(
      String model,
      String query,
      List<Candidate> candidates,
      ScorePrecision precision,
      int topK,
      Cancellation cancellation) {
    if (query == null || query.isBlank()) {
      throw new InvalidInputException("query", "query must not be empty");
    }
    if (candidates.isEmpty()) {
      throw new InvalidInputException("candidates", "at least one candidate is required");
    }
    if (candidates.size() > maxPairs) {
      throw new InvalidInputException(
          "candidates",
          "at most " + maxPairs + " candidates per request, got " + candidates.size());
    }
    if (topK < 0) {
      throw new InvalidInputException("top_k", "top_k must not be negative");
    }
    Set<String> ids = new HashSet<>();
    List<String> texts = new ArrayList<>(candidates.size());
    for (int i = 0; i < candidates.size(); i++) {
      Candidate candidate = candidates.get(i);
      if (candidate.docId() == null || candidate.docId().isBlank() || !ids.add(candidate.docId())) {
        throw new InvalidInputException(
            "candidates[" + i + "].doc_id", "candidate doc ids must be non-empty and unique");
      }
      if (candidate.text() == null || candidate.text().isBlank()) {
        throw new InvalidInputException(
            "candidates[" + i + "].text", "candidate text must not be empty");
      }
      texts.add(candidate.text());
    }
    long start = System.nanoTime();
    float[] scores;
    if (BiEncoderReranker.handles(model)) {
      scores = biEncoders.get().score(model, query, texts);
    } else {
      try (var crossEncoder = crossEncoders.acquire(model)) {
        scores = crossEncoder.model().score(query, texts, precision, cancellation);
      }
    }
    long inference = System.nanoTime() - start;
    List<Scored> ranked = new ArrayList<>(scores.length);
    for (int i = 0; i < scores.length; i++) {
      ranked.add(new Scored(candidates.get(i).docId(), scores[i]));
    }
    ranked.sort(
        Comparator.comparing(Scored::score, Comparator.reverseOrder())
            .thenComparing(Scored::docId));
    return new Reranked(
        topK == 0 ? ranked : ranked.subList(0, Math.min(topK, ranked.size())), inference);
  }

  @Override
  public void close() {
    crossEncoders.close();
    shutdown.close();
  }
}
