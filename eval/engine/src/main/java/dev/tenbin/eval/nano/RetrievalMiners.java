package dev.tenbin.eval.nano;

import dev.tenbin.eval.cache.EmbeddingCache;
import dev.tenbin.eval.retrieval.Bm25Retrieval;
import dev.tenbin.eval.retrieval.DenseRetrieval;
import dev.tenbin.eval.retrieval.EncodeProgress;
import dev.tenbin.eval.services.IndexLanguage;
import dev.tenbin.eval.services.Services;
import dev.tenbin.proto.common.v1.Similarity;
import dev.tenbin.proto.encoder.v1.ModelCard;
import dev.tenbin.scoring.beir.BeirDataset;
import dev.tenbin.scoring.metrics.ScoredDoc;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Hard-negative miners over the project's own retrieval: BM25 ({@link Bm25Retrieval}, the
 * collection's analyzer language) and dense ({@link DenseRetrieval}: the model's prompts, exact
 * cosine), both through {@link Services}, as {@code tenbin eval} runs them. Nothing starts until a
 * miner ranks: a Nano-set drawn from judged negatives starts no encoder.
 */
public final class RetrievalMiners {
  private RetrievalMiners() {}

  /**
   * The miners of {@code specs} over {@code services}; {@code language} (null: detected from the
   * corpus) selects the BM25 analyzer; the dense miners encode through {@code cache} when it is not
   * null.
   */
  public static List<HardNegativeMiner> of(
      List<MinerSpec> specs,
      Services services,
      String language,
      EmbeddingCache cache,
      EncodeProgress progress) {
    return specs.stream()
        .map(
            spec ->
                spec.kind() == MinerSpec.Kind.BM25
                    ? (HardNegativeMiner) new Bm25Miner(services, language)
                    : new DenseMiner(services, spec.model(), cache, progress))
        .toList();
  }

  private static Map<String, List<String>> ids(Map<String, List<ScoredDoc>> rankings) {
    Map<String, List<String>> out = new LinkedHashMap<>();
    rankings.forEach(
        (query, ranking) -> out.put(query, ranking.stream().map(ScoredDoc::docId).toList()));
    return out;
  }

  private static final class Bm25Miner implements HardNegativeMiner {
    private final Services services;
    private final String language;
    private final Map<String, String> facts = new LinkedHashMap<>();

    Bm25Miner(Services services, String language) {
      this.services = services;
      this.language = language;
    }

    @Override
    public String name() {
      return MinerSpec.BM25.name();
    }

    @Override
    public Map<String, List<String>> rank(BeirDataset dataset, int depth) {
      IndexLanguage resolved =
          IndexLanguage.resolve(services.index(), language, dataset::textSample);
      facts.put("language", resolved.code());
      facts.put("language_source", resolved.detected() ? "detected" : "flag");
      facts.put("retrieval", "Lucene BM25 k1=0.9 b=0.4, title and text");
      return ids(
          new Bm25Retrieval(services.index())
              .withoutLatencyProbe()
              .run(dataset, resolved.code(), depth)
              .rankings());
    }

    @Override
    public Map<String, String> facts() {
      return Map.copyOf(facts);
    }
  }

  private static final class DenseMiner implements HardNegativeMiner {
    private final Services services;
    private final String model;
    private final EmbeddingCache cache;
    private final EncodeProgress progress;
    private final Map<String, String> facts = new LinkedHashMap<>();

    DenseMiner(Services services, String model, EmbeddingCache cache, EncodeProgress progress) {
      this.services = services;
      this.model = model;
      this.cache = cache;
      this.progress = progress;
    }

    @Override
    public String name() {
      return "dense:" + model;
    }

    @Override
    public Map<String, List<String>> rank(BeirDataset dataset, int depth) {
      ModelCard card = services.encoder().modelInfo(model).getCard();
      facts.put("model_id", card.getId());
      facts.put("model_revision", card.getRevision());
      if (!card.getResolvedSha().isEmpty()) {
        facts.put("model_resolved_sha", card.getResolvedSha());
      }
      facts.put("model_dtype", card.getDtype());
      facts.put("retrieval", "exact cosine, the model's query and document prompts");
      DenseRetrieval retrieval =
          new DenseRetrieval(services.index(), services.encoder(), progress).withoutLatencyProbe();
      if (cache != null) {
        retrieval = retrieval.withEmbeddingCache(cache);
      }
      return ids(
          retrieval
              .run(
                  dataset,
                  model,
                  DenseRetrieval.QueryEncoding.FULL,
                  Similarity.SIMILARITY_COSINE,
                  depth)
              .rankings());
    }

    @Override
    public Map<String, String> facts() {
      return Map.copyOf(facts);
    }
  }
}
