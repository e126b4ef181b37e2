package dev.tenbin.eval.retrieval;

import dev.tenbin.core.InvalidInputException;
import dev.tenbin.eval.result.CellResult;
import dev.tenbin.eval.services.Services;
import dev.tenbin.model.tokenizer.LengthTokenizer;
import dev.tenbin.proto.common.v1.Similarity;
import dev.tenbin.scoring.beir.BeirDataset;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;

/**
 * The dense runs of one model over its efficiency variants: the variants are grouped by how they
 * cut documents ({@link Chunking}); each group encodes and indexes the corpus once and searches
 * every variant of the group, a chunked group over the documents' windows in the model's own
 * tokens, its hits folded back to documents. With similarity "best", each variant keeps the better
 * of cosine and dot by nDCG@10 ({@link DenseSimilarities#bestPerVariant}).
 *
 * @param services the job's index and encoder
 * @param retrieval what the job wraps around each dense retrieval (its embedding cache)
 * @param progress where encode progress goes
 * @param similarity "cosine", "dot" or "best"
 * @param topK ranking depth of every cell
 * @param latencyConcurrency the queries in flight when latency is measured concurrently
 * @param shards the shards each dense collection is split into
 * @param replicas the replicas each shard is kept as
 */
public record DenseRuns(
    Services services,
    UnaryOperator<DenseRetrieval> retrieval,
    EncodeProgress progress,
    String similarity,
    int topK,
    int latencyConcurrency,
    int shards,
    int replicas) {

  /** Runs per variant name of {@code variants} of {@code model}, the system named {@code name}. */
  public Map<String, CellResult> run(
      BeirDataset data,
      String model,
      DenseRetrieval.QueryEncoding encoding,
      List<DenseVariant> variants,
      String name) {
    if (variants.isEmpty()) {
      return Map.of();
    }
    List<Similarity> similarities = DenseSimilarities.parse("similarity", similarity);
    Map<Chunking, List<DenseVariant>> byChunking = new LinkedHashMap<>();
    for (DenseVariant variant : variants) {
      byChunking.computeIfAbsent(variant.chunking(), c -> new ArrayList<>()).add(variant);
    }
    Map<String, RetrievalResult> results = new LinkedHashMap<>();
    for (Map.Entry<Chunking, List<DenseVariant>> group : byChunking.entrySet()) {
      DenseRetrieval dense =
          retrieval.apply(
              new DenseRetrieval(services.index(), services.encoder(), progress)
                  .withLatencyConcurrency(latencyConcurrency)
                  .withShards(shards)
                  .withReplicas(replicas)
                  .withSlicesInFlight(services.encodeSlicesInFlight()));
      if (group.getKey().truncates()) {
        results.putAll(dense.run(data, model, encoding, similarities, topK, group.getValue()));
        continue;
      }
      DocumentWindows windows = windows(data, model, group.getKey());
      dense
          .run(
              windows.dataset(data),
              model,
              encoding,
              similarities,
              windows.depth(topK),
              group.getValue())
          .forEach((key, result) -> results.put(key, windows.fold(result, topK)));
    }
    return DenseSimilarities.bestPerVariant(data, name, variants, similarities, results);
  }

  /**
   * Encodes shard {@code shard}'s share of {@code data}'s corpus for {@code model}'s work item when
   * a job runs as {@code shards} processes ({@link DenseRetrieval#encodeShare}): once for all the
   * variants that index whole documents, none when only chunked ones (maxp, firstp) are among
   * {@code variants} (their windows are encoded by the work item itself).
   */
  public DenseRetrieval.Share encodeShare(
      BeirDataset data, String model, List<DenseVariant> variants, int shard, int shards) {
    if (variants.stream().noneMatch(variant -> variant.chunking().truncates())) {
      return new DenseRetrieval.Share(0, 0, 0);
    }
    return retrieval
        .apply(new DenseRetrieval(services.index(), services.encoder(), progress))
        .encodeShare(data, model, shard, shards);
  }

  /**
   * The corpus cut for {@code chunking} in {@code model}'s own tokens; a window that would not fit
   * the model with its special tokens and document prompt is refused.
   */
  private DocumentWindows windows(BeirDataset data, String model, Chunking chunking) {
    var card = services.encoder().modelInfo(model).getCard();
    try (LengthTokenizer tokenizer = modelTokenizer(model)) {
      int room = card.getMaxLength() - 2 - tokenizer.count(card.getDocumentPrompt());
      if (chunking.window() > room) {
        throw new InvalidInputException(
            "--variant",
            "a window of "
                + chunking.window()
                + " tokens does not fit "
                + model
                + " (max length "
                + card.getMaxLength()
                + " with its special tokens and document prompt leaves "
                + room
                + ")");
      }
      return DocumentWindows.cut(data, chunking, tokenizer);
    }
  }

  /** The model's tokenizer: a built-in model's, or {@code <models dir>/<id>/tokenizer.json}. */
  private LengthTokenizer modelTokenizer(String model) {
    try {
      return LengthTokenizer.open(model);
    } catch (InvalidInputException notBuiltIn) {
      Path local = services.modelsDirectory().resolve(model);
      if (!Files.isRegularFile(local.resolve("tokenizer.json"))) {
        throw new InvalidInputException(
            "--variant",
            "maxp/firstp cut documents in the model's tokens: no tokenizer.json of "
                + model
                + " here (a built-in model, or "
                + local
                + "/tokenizer.json)");
      }
      return LengthTokenizer.open(local.toString());
    }
  }
}
