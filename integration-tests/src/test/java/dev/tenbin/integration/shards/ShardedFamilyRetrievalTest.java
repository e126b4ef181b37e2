package dev.tenbin.integration.shards;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenbin.eval.retrieval.MultiVectorRetrieval;
import dev.tenbin.eval.retrieval.SparseRetrieval;
import dev.tenbin.eval.retrieval.SparseVariant;
import dev.tenbin.eval.services.Services;
import dev.tenbin.scoring.beir.BeirDataset;
import dev.tenbin.scoring.beir.BeirDatasetReader;
import dev.tenbin.scoring.metrics.ScoredDoc;
import dev.tenbin.testing.models.TinyModels;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The learned sparse ({@code sparse:}, {@code sparse-bm25:}) and late-interaction ({@code
 * multivector:}) retrievals of a job, with tiny models on the embedded encoder and index, give over
 * K=3 shards and over K=2 shards of R=2 replicas the rankings of one collection: the same
 * documents, scores bit for bit and ties.
 */
class ShardedFamilyRetrievalTest {
  @TempDir Path tmp;

  private static final int[][] LAYOUTS = {{3, 1}, {2, 2}};

  /** A corpus of the tiny models' words, with its queries and judgments. */
  private BeirDataset dataset() throws IOException {
    Path dir = Files.createDirectories(tmp.resolve("beir").resolve("qrels"));
    SplittableRandom random = new SplittableRandom(31);
    List<String> words = TinyModels.WORDS;
    StringBuilder corpus = new StringBuilder();
    for (int d = 0; d < 120; d++) {
      StringBuilder text = new StringBuilder();
      for (int w = random.nextInt(1, 5); w > 0; w--) {
        text.append(words.get(random.nextInt(words.size()))).append(' ');
      }
      corpus.append(
          "{\"_id\":\"d%d\",\"title\":\"\",\"text\":\"%s\"}\n"
              .formatted(d, text.toString().strip()));
    }
    Files.writeString(dir.getParent().resolve("corpus.jsonl"), corpus);
    StringBuilder queries = new StringBuilder();
    StringBuilder qrels = new StringBuilder("query-id\tcorpus-id\tscore\n");
    for (int q = 0; q < 12; q++) {
      queries.append(
          "{\"_id\":\"q%d\",\"text\":\"%s %s\"}\n"
              .formatted(q, words.get(q % words.size()), words.get((q * 3 + 1) % words.size())));
      qrels.append("q%d\td%d\t1\n".formatted(q, q * 7));
    }
    Files.writeString(dir.getParent().resolve("queries.jsonl"), queries);
    Files.writeString(dir.resolve("test.tsv"), qrels);
    return BeirDatasetReader.read(dir.getParent());
  }

  private static Map<String, List<ScoredDoc>> sparse(
      Services services, BeirDataset data, boolean bm25Weights, int shards, int replicas) {
    return new SparseRetrieval(services.index(), services.encoder())
        .withLatencyConcurrency(1)
        .withShards(shards)
        .withReplicas(replicas)
        .run(data, "tiny-splade", bm25Weights, 30, List.of(SparseVariant.BASE))
        .get(SparseVariant.BASE.name())
        .rankings();
  }

  private static Map<String, List<ScoredDoc>> multiVector(
      Services services, BeirDataset data, int shards, int replicas) {
    return new MultiVectorRetrieval(services.index(), services.encoder())
        .withLatencyConcurrency(1)
        .withShards(shards)
        .withReplicas(replicas)
        .run(data, "tiny-colbert", 30)
        .rankings();
  }

  @Test
  void sparseAndLateInteractionRunsOverShardsAndReplicasRankAsOneCollection() throws Exception {
    Path models = tmp.resolve("models");
    TinyModels.sparse(models, "tiny-splade");
    TinyModels.multiVector(models, "tiny-colbert");
    BeirDataset data = dataset();
    try (Services services = Services.connect(null, null, models, tmp.resolve("cache"))) {
      for (boolean bm25Weights : new boolean[] {false, true}) {
        Map<String, List<ScoredDoc>> one = sparse(services, data, bm25Weights, 1, 1);
        assertThat(one).hasSize(12);
        assertThat(one.values()).anySatisfy(ranking -> assertThat(ranking).hasSizeGreaterThan(5));
        for (int[] layout : LAYOUTS) {
          assertThat(sparse(services, data, bm25Weights, layout[0], layout[1]))
              .as("sparse, BM25 weights " + bm25Weights + ", " + layout[0] + "x" + layout[1])
              .isEqualTo(one);
        }
      }
      Map<String, List<ScoredDoc>> one = multiVector(services, data, 1, 1);
      assertThat(one.values()).allSatisfy(ranking -> assertThat(ranking).hasSize(30));
      for (int[] layout : LAYOUTS) {
        assertThat(multiVector(services, data, layout[0], layout[1]))
            .as("late interaction, " + layout[0] + "x" + layout[1])
            .isEqualTo(one);
      }
    }
  }
}
