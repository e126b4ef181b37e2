package dev.tenbin.eval.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.tenbin.client.encoder.EncoderClient;
import dev.tenbin.eval.retrieval.DenseRetrieval;
import dev.tenbin.eval.retrieval.DenseVariant;
import dev.tenbin.eval.services.Services;
import dev.tenbin.proto.common.v1.Similarity;
import dev.tenbin.proto.encoder.v1.LightCacheDtype;
import dev.tenbin.scoring.beir.BeirDataset;
import dev.tenbin.scoring.beir.BeirDatasetReader;
import dev.tenbin.scoring.metrics.ScoredDoc;
import dev.tenbin.testing.models.TinyModels;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A truncated LightRetriever variant scores with queries looked up in the token table of its width
 * (rows truncated and normalised there, then averaged), against the documents truncated to it.
 */
class LightTruncationTest {
  private static final int WIDTH = 4;

  @TempDir Path tmp;

  @Test
  void aTruncatedLightVariantScoresWithTheQueriesOfTheTableOfItsWidth() throws Exception {
    Path models = tmp.resolve("models");
    TinyModels.dense(models, "tiny-dense", false);
    BeirDataset data = BeirDatasetReader.read(fruitFolder(tmp.resolve("fruit")));
    try (Services services = Services.connect(null, null, models, tmp.resolve("cache"))) {
      EncoderClient encoder = services.encoder();
      encoder.buildLightCache(
          "tiny-dense", LightCacheDtype.LIGHT_CACHE_DTYPE_FP32, 0, 0, (done, total) -> {});
      encoder.buildLightCache(
          "tiny-dense", LightCacheDtype.LIGHT_CACHE_DTYPE_FP32, WIDTH, 0, (done, total) -> {});
      DenseVariant truncated = DenseVariant.parse("truncate" + WIDTH);

      Map<String, List<ScoredDoc>> rankings =
          new DenseRetrieval(
                  services.index(), services.encoder(), new PrintWriter(new StringWriter()))
              .run(
                  data,
                  "tiny-dense",
                  DenseRetrieval.QueryEncoding.LIGHT,
                  List.of(Similarity.SIMILARITY_COSINE),
                  10,
                  List.of(truncated))
              .get(DenseRetrieval.key(truncated, Similarity.SIMILARITY_COSINE))
              .rankings();

      List<String> texts = new ArrayList<>();
      data.corpus().forEach(doc -> texts.add(doc.titleAndText()));
      List<float[]> documents = encoder.encodeDense("tiny-dense", texts, false, 0);
      double differenceFromTruncatedMean = 0;
      for (String queryId : data.evaluatedQueryIds()) {
        float[] query =
            encoder
                .encodeLightDense("tiny-dense", List.of(data.queries().get(queryId)), WIDTH)
                .getFirst();
        float[] fromFullWidth =
            normalizedPrefix(
                encoder
                    .encodeLightDense("tiny-dense", List.of(data.queries().get(queryId)), 0)
                    .getFirst());
        for (ScoredDoc hit : rankings.get(queryId)) {
          float[] doc = normalizedPrefix(documents.get(indexOf(data, hit.docId())));
          assertThat(hit.score()).isCloseTo(dot(query, doc), within(1e-5));
          differenceFromTruncatedMean =
              Math.max(
                  differenceFromTruncatedMean, Math.abs(hit.score() - dot(fromFullWidth, doc)));
        }
      }
      assertThat(differenceFromTruncatedMean)
          .as("the full-width mean truncated afterwards scores otherwise (queries of 2+ tokens)")
          .isGreaterThan(1e-4);
    }
  }

  @Test
  void anEvalOfATruncatedLightVariantBuildsTheTableOfItsWidthFirst() throws Exception {
    Path models = tmp.resolve("models");
    TinyModels.dense(models, "tiny-dense", false);
    Path cache = tmp.resolve("cache");
    CliRunner result =
        CliRunner.run(
            "eval",
            "--dataset",
            fruitFolder(tmp.resolve("fruit")).toString(),
            "--retriever",
            "light:tiny-dense",
            "--variant",
            "truncate" + WIDTH,
            "--models-dir",
            models.toString(),
            "--cache-dir",
            cache.toString(),
            "--json");

    assertThat(result.exitCode()).as(result.err()).isZero();
    assertThat(result.err()).contains("LightRetriever cache of tiny-dense at width " + WIDTH);
    try (var files = java.nio.file.Files.walk(cache.resolve("light"))) {
      assertThat(
              files
                  .filter(file -> file.getFileName().toString().equals("manifest.json"))
                  .map(file -> readDimension(file)))
          .containsExactlyInAnyOrder(TinyModels.HIDDEN, WIDTH);
    }
  }

  private static int readDimension(Path manifest) {
    try {
      return new com.fasterxml.jackson.databind.ObjectMapper()
          .readTree(manifest.toFile())
          .get("dimension")
          .asInt();
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  /** Texts in the tiny model's vocabulary, queries of several distinct tokens. */
  private static Path fruitFolder(Path dir) throws java.io.IOException {
    java.nio.file.Files.createDirectories(dir.resolve("qrels"));
    java.nio.file.Files.writeString(
        dir.resolve("corpus.jsonl"),
        """
        {"_id": "d1", "text": "apple banana apple"}
        {"_id": "d2", "text": "cherry date"}
        {"_id": "d3", "text": "elder fig grape"}
        {"_id": "d4", "text": "banana grape cherry apple"}
        """);
    java.nio.file.Files.writeString(
        dir.resolve("queries.jsonl"),
        """
        {"_id": "q1", "text": "apple banana"}
        {"_id": "q2", "text": "cherry date fig"}
        {"_id": "q3", "text": "grape elder banana"}
        """);
    java.nio.file.Files.writeString(
        dir.resolve("qrels/test.tsv"),
        "query-id\tcorpus-id\tscore\nq1\td1\t1\nq2\td2\t1\nq3\td3\t1\n");
    return dir;
  }

  private static int indexOf(BeirDataset data, String docId) {
    for (int i = 0; i < data.corpus().size(); i++) {
      if (data.corpus().toList().get(i).id().equals(docId)) {
        return i;
      }
    }
    throw new AssertionError(docId);
  }

  private static float[] normalizedPrefix(float[] vector) {
    float[] prefix = java.util.Arrays.copyOf(vector, WIDTH);
    double norm = 0;
    for (float v : prefix) {
      norm += v * v;
    }
    for (int i = 0; i < WIDTH; i++) {
      prefix[i] /= (float) Math.sqrt(norm);
    }
    return prefix;
  }

  private static double dot(float[] a, float[] b) {
    double sum = 0;
    for (int i = 0; i < a.length; i++) {
      sum += a[i] * b[i];
    }
    return sum;
  }
}
