package dev.tenbin.eval.candidates;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tenbin.client.encoder.EncoderClient;
import dev.tenbin.client.index.IndexClient;
import dev.tenbin.eval.cache.EmbeddingCache;
import dev.tenbin.eval.retrieval.Bm25Retrieval;
import dev.tenbin.eval.retrieval.DenseRetrieval;
import dev.tenbin.eval.retrieval.EncodeProgress;
import dev.tenbin.eval.retrieval.Fusion;
import dev.tenbin.proto.common.v1.Similarity;
import dev.tenbin.scoring.beir.BeirDataset;
import dev.tenbin.scoring.beir.DatasetFingerprint;
import dev.tenbin.scoring.metrics.ScoredDoc;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * Builds the fixed candidate sets of a task, once, for every model to be scored on: BM25 top-500
 * and dense top-500 fused by RRF (k = 100), the top-100 kept; when the top-100 holds no positive
 * the safeguard appends one at rank 101 (the best-ranked positive of the fused list, else the first
 * judged positive by doc id). Also a BM25-only top-100 set.
 */
public final class CandidateSetBuilder {
  public static final int DEPTH = 500;
  public static final int KEEP = 100;
  public static final int RRF_K = 100;

  private final IndexClient index;
  private final EncoderClient encoder;
  private final EncodeProgress progress;
  private final EmbeddingCache embeddingCache;
  private final int shards;
  private final int replicas;

  public CandidateSetBuilder(IndexClient index, EncoderClient encoder, PrintWriter progress) {
    this(index, encoder, EncodeProgress.printingTo(progress));
  }

  public CandidateSetBuilder(IndexClient index, EncoderClient encoder, EncodeProgress progress) {
    this(index, encoder, progress, null, 1, 1);
  }

  private CandidateSetBuilder(
      IndexClient index,
      EncoderClient encoder,
      EncodeProgress progress,
      EmbeddingCache embeddingCache,
      int shards,
      int replicas) {
    this.index = index;
    this.encoder = encoder;
    this.progress = progress;
    this.embeddingCache = embeddingCache;
    this.shards = shards;
    this.replicas = replicas;
  }

  /** The same builder encoding the dense half through {@code cache}. */
  public CandidateSetBuilder withEmbeddingCache(EmbeddingCache cache) {
    return new CandidateSetBuilder(index, encoder, progress, cache, shards, replicas);
  }

  /**
   * The same builder retrieving over collections of {@code shards} shards, each kept as {@code
   * replicas} replicas: the BM25 and exact dense rankings, and so the sets, are the ones one
   * collection gives.
   */
  public CandidateSetBuilder withShards(int shards, int replicas) {
    return new CandidateSetBuilder(index, encoder, progress, embeddingCache, shards, replicas);
  }

  /** The hybrid and the BM25-only sets. */
  public List<CandidateSet> build(BeirDataset dataset, String language, String denseModel) {
    Map<String, List<ScoredDoc>> bm25 =
        new Bm25Retrieval(index)
            .withoutLatencyProbe()
            .withShards(shards)
            .withReplicas(replicas)
            .run(dataset, language, DEPTH)
            .rankings();
    DenseRetrieval denseRetrieval =
        new DenseRetrieval(index, encoder, progress)
            .withoutLatencyProbe()
            .withShards(shards)
            .withReplicas(replicas);
    if (embeddingCache != null) {
      denseRetrieval = denseRetrieval.withEmbeddingCache(embeddingCache);
    }
    Map<String, List<ScoredDoc>> dense =
        denseRetrieval
            .run(
                dataset,
                denseModel,
                DenseRetrieval.QueryEncoding.FULL,
                Similarity.SIMILARITY_COSINE,
                DEPTH)
            .rankings();
    Map<String, Map<String, List<ScoredDoc>>> systems = new LinkedHashMap<>();
    systems.put("bm25", bm25);
    systems.put("dense", dense);
    Map<String, List<ScoredDoc>> fused = Fusion.reciprocalRank(index, RRF_K, 2 * DEPTH, systems);
    ObjectNode header = header(dataset, "hybrid", language, denseModel);
    ObjectNode bm25Header = header(dataset, "bm25", language, "");
    List<QueryCandidates> hybrid = new ArrayList<>();
    List<QueryCandidates> bm25Only = new ArrayList<>();
    for (String queryId : dataset.evaluatedQueryIds()) {
      Map<String, Integer> bm25Ranks = ranks(bm25.get(queryId));
      Map<String, Integer> denseRanks = ranks(dense.get(queryId));
      hybrid.add(
          withSafeguard(
              dataset, queryId, fused.getOrDefault(queryId, List.of()), bm25Ranks, denseRanks));
      bm25Only.add(
          withSafeguard(
              dataset, queryId, bm25.getOrDefault(queryId, List.of()), bm25Ranks, Map.of()));
    }
    return List.of(new CandidateSet(header, hybrid), new CandidateSet(bm25Header, bm25Only));
  }

  static QueryCandidates withSafeguard(
      BeirDataset dataset,
      String queryId,
      List<ScoredDoc> list,
      Map<String, Integer> bm25Ranks,
      Map<String, Integer> denseRanks) {
    List<Candidate> top = new ArrayList<>();
    boolean hasPositive = false;
    for (int i = 0; i < Math.min(KEEP, list.size()); i++) {
      String doc = list.get(i).docId();
      top.add(
          new Candidate(
              doc, i + 1, bm25Ranks.getOrDefault(doc, 0), denseRanks.getOrDefault(doc, 0)));
      hasPositive |= dataset.qrels().grade(queryId, doc) > 0;
    }
    Candidate safeguard = null;
    if (!hasPositive) {
      String positive = null;
      for (int i = KEEP; i < list.size() && positive == null; i++) {
        if (dataset.qrels().grade(queryId, list.get(i).docId()) > 0) {
          positive = list.get(i).docId();
        }
      }
      if (positive == null) {
        TreeSet<String> judged = new TreeSet<>();
        dataset
            .qrels()
            .judgments(queryId)
            .forEach(
                (doc, grade) -> {
                  if (grade > 0) {
                    judged.add(doc);
                  }
                });
        positive = judged.isEmpty() ? null : judged.first();
      }
      if (positive != null) {
        safeguard =
            new Candidate(
                positive,
                KEEP + 1,
                bm25Ranks.getOrDefault(positive, 0),
                denseRanks.getOrDefault(positive, 0));
      }
    }
    return new QueryCandidates(queryId, top, safeguard);
  }

  private static Map<String, Integer> ranks(List<ScoredDoc> list) {
    Map<String, Integer> ranks = new HashMap<>();
    if (list != null) {
      for (int i = 0; i < list.size(); i++) {
        ranks.putIfAbsent(list.get(i).docId(), i + 1);
      }
    }
    return ranks;
  }

  private static ObjectNode header(
      BeirDataset dataset, String kind, String language, String denseModel) {
    ObjectNode header = new ObjectMapper().createObjectNode();
    header.put("format_version", CandidateSet.FORMAT_VERSION);
    header.put("kind", kind);
    header.put("dataset", dataset.name());
    header.put("dataset_sha256", DatasetFingerprint.of(dataset.directory(), dataset.split()));
    header.put("language", language);
    header.put("bm25", "Lucene BM25 k1=0.9 b=0.4, top-" + (kind.equals("hybrid") ? DEPTH : KEEP));
    if (!denseModel.isEmpty()) {
      header.put("dense_model", denseModel);
      header.put("dense", "exact cosine, model's query prompt, top-" + DEPTH);
      header.put("fusion", "reciprocal rank fusion, k=" + RRF_K);
    }
    header.put("keep", KEEP);
    header.put(
        "safeguard",
        "one positive appended at rank 101 when the top-100 holds none: best-ranked positive of the fused list, else the first judged positive by doc id");
    header.put("tenbin_version", dev.tenbin.eval.provenance.TenbinVersion.get());
    return header;
  }
}
