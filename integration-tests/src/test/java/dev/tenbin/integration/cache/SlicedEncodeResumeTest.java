package dev.tenbin.integration.cache;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tenbin.eval.cache.EmbeddingCache;
import dev.tenbin.eval.retrieval.DenseRetrieval;
import dev.tenbin.eval.retrieval.EncodeProgress;
import dev.tenbin.eval.retrieval.RetrievalResult;
import dev.tenbin.eval.services.Services;
import dev.tenbin.proto.common.v1.Similarity;
import dev.tenbin.scoring.beir.BeirDataset;
import dev.tenbin.scoring.beir.BeirDatasetReader;
import dev.tenbin.testing.models.TinyModels;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A dense encode through the embedding cache resumes at its first unfinished corpus slice: a run
 * cut off inside the second of three slices keeps the first, the next run reads it back and says
 * so, encodes only the rest, ranks exactly as an uninterrupted run, and counts each slice's encode
 * time as measured when it was encoded, so every later run reports the same encode time.
 */
class SlicedEncodeResumeTest {
  private static final int SLICE = 4_096;
  private static final int DOCUMENTS = 2 * SLICE + 100;
  private static final int QUERIES = SlicedCorpus.QUERIES;

  @TempDir Path tmp;

  /** Stops the encode once {@code limit} documents are reported done. */
  private static final class Interrupted extends RuntimeException {
    Interrupted() {
      super("interrupted mid-corpus", null, false, false);
    }
  }

  @Test
  void anEncodeCutOffMidCorpusResumesAtItsFirstUnfinishedSlice() throws Exception {
    Path models = tmp.resolve("models");
    TinyModels.dense(models, "tiny-dense", false);
    BeirDataset data = BeirDatasetReader.read(SlicedCorpus.write(tmp.resolve("data"), DOCUMENTS));
    try (Services services = Services.connect(null, null, models, tmp.resolve("hub"));
        EmbeddingCache cache = EmbeddingCache.open(tmp.resolve("cache"))) {
      var uncached = run(new DenseRetrieval(services.index(), services.encoder(), quiet()), data);

      EncodeProgress cutOff =
          (what, done, total) -> {
            if (what.startsWith("encoding documents") && done > SLICE + 100) {
              throw new Interrupted();
            }
          };
      DenseRetrieval interrupted =
          new DenseRetrieval(services.index(), services.encoder(), cutOff)
              .withEmbeddingCache(cache);
      assertThatThrownBy(() -> run(interrupted, data)).isInstanceOf(Interrupted.class);
      assertThat(cache.stats().misses()).as("the first slice was stored").isEqualTo(SLICE);

      List<String> notes = new ArrayList<>();
      var resumed = run(retrieval(services, cache, notes), data);
      assertThat(notes)
          .containsExactly(
              "encoding documents with tiny-dense: resuming at slice 2 of 3; 1 slices (4096"
                  + " documents) were encoded before, read back");
      assertThat(cache.stats().misses())
          .as("only the unfinished slices (and the queries) were encoded")
          .isEqualTo(DOCUMENTS + QUERIES);
      assertThat(resumed.rankings()).isEqualTo(uncached.rankings());
      assertThat(resumed.documentEncodeNanos()).isEqualTo(recordedEncodeNanos());

      notes.clear();
      var warm = run(retrieval(services, cache, notes), data);
      assertThat(notes)
          .containsExactly(
              "encoding documents with tiny-dense: all 3 slices were encoded before, read back");
      assertThat(cache.stats().misses()).isEqualTo(DOCUMENTS + QUERIES);
      assertThat(warm.rankings()).isEqualTo(uncached.rankings());
      assertThat(warm.documentEncodeNanos()).isEqualTo(resumed.documentEncodeNanos());
      assertThat(warm.indexNanos()).isGreaterThanOrEqualTo(warm.documentEncodeNanos());
    }
  }

  private static DenseRetrieval retrieval(
      Services services, EmbeddingCache cache, List<String> notes) {
    EncodeProgress progress = quiet().notingTo(notes::add);
    return new DenseRetrieval(services.index(), services.encoder(), progress)
        .withEmbeddingCache(cache);
  }

  private static EncodeProgress quiet() {
    return EncodeProgress.NONE;
  }

  private static RetrievalResult run(DenseRetrieval retrieval, BeirDataset data) {
    return retrieval
        .withoutLatencyProbe()
        .run(
            data,
            "tiny-dense",
            DenseRetrieval.QueryEncoding.FULL,
            Similarity.SIMILARITY_COSINE,
            10);
  }

  /** The encode times the cache's slice records hold, summed over the document key space. */
  private long recordedEncodeNanos() throws IOException {
    long sum = 0;
    try (Stream<Path> files = Files.walk(tmp.resolve("cache"))) {
      for (Path file : files.filter(f -> f.endsWith("slices.tsv")).toList()) {
        for (String line : Files.readAllLines(file)) {
          sum += Long.parseLong(line.split("\t")[2]);
        }
      }
    }
    return sum;
  }
}
