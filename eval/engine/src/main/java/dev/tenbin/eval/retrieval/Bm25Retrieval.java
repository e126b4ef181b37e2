package dev.tenbin.eval.retrieval;

import dev.tenbin.client.index.IndexClient;
import dev.tenbin.client.index.ShardedCollection;
import dev.tenbin.eval.result.Latency;
import dev.tenbin.eval.result.RunDiagnostics;
import dev.tenbin.proto.index.v1.Family;
import dev.tenbin.proto.index.v1.Query;
import dev.tenbin.scoring.beir.BeirDataset;
import dev.tenbin.scoring.beir.Corpus;
import java.util.ArrayList;
import java.util.List;

/**
 * BM25 over the index service: a collection in the dataset's language (and {@link Bm25Settings}),
 * title and text ingested together, the evaluated queries searched, the collection dropped again.
 */
public final class Bm25Retrieval {
  private final IndexClient index;
  private final boolean probeLatency;
  private final Bm25Settings settings;
  private final int latencyConcurrency;
  private final int shards;
  private final int replicas;

  public Bm25Retrieval(IndexClient index) {
    this(index, true, Bm25Settings.DEFAULTS, LatencyProbe.CONCURRENCY, 1, 1);
  }

  private Bm25Retrieval(
      IndexClient index,
      boolean probeLatency,
      Bm25Settings settings,
      int latencyConcurrency,
      int shards,
      int replicas) {
    this.index = index;
    this.probeLatency = probeLatency;
    this.settings = settings;
    this.latencyConcurrency = latencyConcurrency;
    this.shards = shards;
    this.replicas = replicas;
  }

  /**
   * The same retrieval over a collection of {@code value} shards (the same rankings, scores and
   * ties as one collection: {@link dev.tenbin.client.index.ShardedCollection}).
   */
  public Bm25Retrieval withShards(int value) {
    return new Bm25Retrieval(index, probeLatency, settings, latencyConcurrency, value, replicas);
  }

  /**
   * The same retrieval with each shard kept as {@code value} replicas on distinct index pods (the
   * same rankings; a lost pod is routed around while each shard keeps a replica).
   */
  public Bm25Retrieval withReplicas(int value) {
    return new Bm25Retrieval(index, probeLatency, settings, latencyConcurrency, shards, value);
  }

  /** The same retrieval with other k1 / b. */
  public Bm25Retrieval withSettings(Bm25Settings value) {
    return new Bm25Retrieval(index, probeLatency, value, latencyConcurrency, shards, replicas);
  }

  /** The same retrieval probing latency with {@code value} queries in flight as well. */
  public Bm25Retrieval withLatencyConcurrency(int value) {
    return new Bm25Retrieval(index, probeLatency, settings, value, shards, replicas);
  }

  /**
   * The same retrieval without the single-query latency probe (for rankings that are only an input,
   * such as candidate sets).
   */
  public Bm25Retrieval withoutLatencyProbe() {
    return new Bm25Retrieval(index, false, settings, latencyConcurrency, shards, replicas);
  }

  public RetrievalResult run(BeirDataset dataset, String language, int topK) {
    long start = System.nanoTime();
    int documents = dataset.corpus().size();
    // BM25's documents are the corpus's text: a run again ingests the same bytes, so the work
    // item's collection resumes after the slices an interrupted run committed.
    try (IndexSession session =
        new IndexSession(
            index,
            IndexSession.Shape.bm25(language, settings).withLayout(shards, replicas),
            "bm25 " + documents)) {
      try (Corpus.Walk walk = dataset.corpus().walk()) {
        session.ingest(CorpusDocuments.lexical(walk), documents);
      }
      long indexed = System.nanoTime();
      List<Query> queries = new ArrayList<>();
      for (String queryId : dataset.evaluatedQueryIds()) {
        queries.add(
            Query.newBuilder().setId(queryId).setText(dataset.queries().get(queryId)).build());
      }
      ShardedCollection.ScatterCost before = session.collection().scatterCost();
      var rankings = session.search(Family.FAMILY_BM25, queries, null, topK);
      long searched = System.nanoTime();
      RunDiagnostics.Builder diagnostics = RunDiagnostics.builder();
      if (session.shards() > 1) {
        ShardedCollection.ScatterCost scatter = session.collection().scatterCost().since(before);
        diagnostics.scatterCost(scatter.statisticsNanos(), scatter.mergeNanos());
      }
      if (probeLatency) {
        java.util.function.Consumer<Query> search =
            query -> session.search(Family.FAMILY_BM25, List.of(query), null, topK);
        diagnostics
            .latencies(new Latency(0, 0), LatencyProbe.micros(queries, search))
            .concurrentLatency(LatencyProbe.concurrent(queries, latencyConcurrency, search));
      }
      return new RetrievalResult(
          rankings, indexed - start, searched - indexed, documents, 0, 0, diagnostics.build());
    }
  }
}
