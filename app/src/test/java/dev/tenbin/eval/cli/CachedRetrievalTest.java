package dev.tenbin.eval.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenbin.eval.cache.EmbeddingCache;
import dev.tenbin.eval.retrieval.DenseRetrieval;
import dev.tenbin.eval.retrieval.MultiVectorRetrieval;
import dev.tenbin.eval.retrieval.SparseRetrieval;
import dev.tenbin.eval.retrieval.SparseVariant;
import dev.tenbin.eval.services.Services;
import dev.tenbin.proto.common.v1.Similarity;
import dev.tenbin.scoring.beir.BeirDataset;
import dev.tenbin.scoring.beir.BeirDatasetReader;
import dev.tenbin.testing.data.TinyBeir;
import dev.tenbin.testing.models.TinyModels;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The retrievals rank exactly as without a cache, and a re-run answers every encode from it. */
class CachedRetrievalTest {
  @TempDir Path tmp;

  @Test
  void retrievalsThroughTheEmbeddingCacheRankAsWithoutItAndReRunsEncodeNothing() throws Exception {
    Path models = tmp.resolve("models");
    TinyModels.dense(models, "tiny-dense", false);
    TinyModels.sparse(models, "tiny-splade");
    TinyModels.multiVector(models, "tiny-colbert");
    BeirDataset data = BeirDatasetReader.read(TinyBeir.write(tmp.resolve("tiny")));
    PrintWriter progress = new PrintWriter(new StringWriter());
    try (Services services = Services.connect(null, null, models, tmp.resolve("hub"));
        EmbeddingCache cache = EmbeddingCache.open(tmp.resolve("cache"))) {
      var dense = new DenseRetrieval(services.index(), services.encoder(), progress);
      var sparse = new SparseRetrieval(services.index(), services.encoder());
      var multi = new MultiVectorRetrieval(services.index(), services.encoder());
      var plainDense =
          dense
              .run(
                  data,
                  "tiny-dense",
                  DenseRetrieval.QueryEncoding.FULL,
                  Similarity.SIMILARITY_COSINE,
                  10)
              .rankings();
      var plainSparse =
          sparse
              .run(data, "tiny-splade", false, 10, List.of(SparseVariant.BASE))
              .values()
              .iterator()
              .next()
              .rankings();
      var plainMulti = multi.run(data, "tiny-colbert", 10).rankings();

      for (int pass = 0; pass < 2; pass++) {
        assertThat(
                dense
                    .withEmbeddingCache(cache)
                    .run(
                        data,
                        "tiny-dense",
                        DenseRetrieval.QueryEncoding.FULL,
                        Similarity.SIMILARITY_COSINE,
                        10)
                    .rankings())
            .isEqualTo(plainDense);
        assertThat(
                sparse
                    .withEmbeddingCache(cache)
                    .run(data, "tiny-splade", false, 10, List.of(SparseVariant.BASE))
                    .values()
                    .iterator()
                    .next()
                    .rankings())
            .isEqualTo(plainSparse);
        assertThat(multi.withEmbeddingCache(cache).run(data, "tiny-colbert", 10).rankings())
            .isEqualTo(plainMulti);
      }

      int texts = data.corpus().size() + data.evaluatedQueryIds().size();
      assertThat(cache.stats().misses()).isEqualTo(3L * texts);
      assertThat(cache.stats().hits()).isEqualTo(3L * texts);
    }
  }
}
