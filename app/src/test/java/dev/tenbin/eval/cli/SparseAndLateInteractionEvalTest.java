package dev.tenbin.eval.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tenbin.core.Cancellation;
import dev.tenbin.encoder.EncoderCore;
import dev.tenbin.encoder.config.EncoderServiceConfig;
import dev.tenbin.scoring.beir.BeirDataset;
import dev.tenbin.scoring.beir.BeirDatasetReader;
import dev.tenbin.scoring.beir.CorpusDocument;
import dev.tenbin.scoring.metrics.Evaluation;
import dev.tenbin.scoring.metrics.RankingEvaluator;
import dev.tenbin.scoring.metrics.RunOrder;
import dev.tenbin.scoring.metrics.ScoredDoc;
import dev.tenbin.scoring.trec.TrecRunReader;
import dev.tenbin.testing.data.TinyBeir;
import dev.tenbin.testing.models.TinyModels;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SparseAndLateInteractionEvalTest {
  @TempDir Path tmp;

  private JsonNode runs(String... args) throws Exception {
    CliRunner result = CliRunner.run(args);
    assertThat(result.exitCode()).as(result.err()).isZero();
    return new ObjectMapper().readTree(result.out()).get("runs");
  }

  @Test
  void bm25WeightedTokenVectorsRunTheSparseMachineryOnRealTextWithThePruningGrid()
      throws Exception {
    Path data = TinyBeir.write(tmp.resolve("tiny"));
    JsonNode runs =
        runs(
            "eval",
            "--dataset",
            data.toString(),
            "--retriever",
            "sparse-bm25:all-minilm-l6-v2",
            "--variant",
            "base",
            "--variant",
            "sparse_grid",
            "--json",
            "--cache-dir",
            tmp.resolve("cache").toString());
    List<String> variants = new ArrayList<>();
    runs.forEach(r -> variants.add(r.get("variant").asText()));
    assertThat(variants)
        .hasSize(17)
        .startsWith("base", "sparse_q8_d64")
        .endsWith("sparse_q32_d512");
    assertThat(runs.get(0).get("retriever").asText()).isEqualTo("sparse-bm25:all-minilm-l6-v2");
    assertThat(runs.get(0).get("metrics").get("accuracy@1").asDouble()).isEqualTo(1.0);
    assertThat(runs.get(1).get("diagnostics").get("max_query_dims").asInt()).isEqualTo(8);
    assertThat(runs.get(1).get("diagnostics").get("concurrent_latency_in_flight").asInt())
        .isEqualTo(3);
  }

  @Test
  void learnedSparseAndMaxSimRetrieversRunThroughTheServicesAndMaxSimMatchesBruteForce()
      throws Exception {
    Path data = TinyBeir.write(tmp.resolve("tiny"));
    Path models = tmp.resolve("models");
    TinyModels.sparse(models, "tiny-splade");
    TinyModels.multiVector(models, "tiny-colbert");
    Path out = tmp.resolve("out");
    JsonNode runs =
        runs(
            "eval",
            "--dataset",
            data.toString(),
            "--retriever",
            "sparse:tiny-splade,multivector:tiny-colbert",
            "--models-dir",
            models.toString(),
            "--json",
            "--cache-dir",
            tmp.resolve("cache").toString(),
            "--out",
            out.toString());
    assertThat(runs).hasSize(2);
    assertThat(runs.get(0).get("retriever").asText()).isEqualTo("sparse:tiny-splade");
    assertThat(runs.get(1).get("retriever").asText()).isEqualTo("multivector:tiny-colbert");
    assertThat(runs.get(1).get("num_queries").asInt()).isEqualTo(3);
    // Both measured their latency with several queries in flight: the default 4, or here all 3.
    for (JsonNode run : runs) {
      JsonNode diagnostics = run.get("diagnostics");
      assertThat(diagnostics.get("concurrent_latency_in_flight").asInt()).isEqualTo(3);
      assertThat(diagnostics.get("concurrent_latency_p99_us").asDouble())
          .isGreaterThanOrEqualTo(diagnostics.get("concurrent_latency_p50_us").asDouble())
          .isPositive();
      assertThat(diagnostics.get("concurrent_queries_per_second").asDouble()).isPositive();
    }

    // Brute force: encode with the same model, score every document by sum over query tokens of the
    // best dot product with a document token, order by score descending then doc id ascending.
    BeirDataset dataset = BeirDatasetReader.read(data);
    Map<String, List<ScoredDoc>> expected = new LinkedHashMap<>();
    try (EncoderCore encoder =
        new EncoderCore(EncoderServiceConfig.embedded(models, tmp.resolve("brute-cache")))) {
      List<String> texts = dataset.corpus().stream().map(CorpusDocument::titleAndText).toList();
      List<float[]> docs =
          encoder.encodeMultiVector("tiny-colbert", texts, false, Cancellation.NEVER).vectors();
      List<String> queryIds = dataset.evaluatedQueryIds();
      List<float[]> queries =
          encoder
              .encodeMultiVector(
                  "tiny-colbert",
                  queryIds.stream().map(id -> dataset.queries().get(id)).toList(),
                  true,
                  Cancellation.NEVER)
              .vectors();
      for (int q = 0; q < queryIds.size(); q++) {
        List<ScoredDoc> ranking = new ArrayList<>();
        for (int d = 0; d < docs.size(); d++) {
          ranking.add(
              new ScoredDoc(
                  dataset.corpus().toList().get(d).id(),
                  maxSim(queries.get(q), docs.get(d), TinyModels.HIDDEN)));
        }
        ranking.sort(
            Comparator.comparingDouble((ScoredDoc doc) -> -doc.score())
                .thenComparing(ScoredDoc::docId));
        expected.put(queryIds.get(q), ranking);
      }
    }
    Path runFile;
    try (var files = Files.list(out.resolve("runs"))) {
      runFile =
          files
              .filter(f -> f.getFileName().toString().startsWith("multivector"))
              .findFirst()
              .orElseThrow();
    }
    Map<String, List<ScoredDoc>> written = TrecRunReader.read(runFile);
    assertThat(written.keySet()).containsExactlyElementsOf(expected.keySet());
    expected.forEach(
        (query, ranking) -> {
          List<ScoredDoc> got = written.get(query);
          assertThat(got)
              .extracting(ScoredDoc::docId)
              .as(query)
              .containsExactlyElementsOf(ranking.stream().map(ScoredDoc::docId).toList());
          for (int i = 0; i < got.size(); i++) {
            assertThat(got.get(i).score())
                .as("%s %s", query, got.get(i).docId())
                .isCloseTo(ranking.get(i).score(), within(1e-4));
          }
        });
    Evaluation bruteForce =
        RankingEvaluator.standard()
            .evaluate(dataset.qrels(), expected, dataset.evaluatedQueryIds(), RunOrder.AS_GIVEN);
    bruteForce
        .means()
        .forEach(
            (name, value) ->
                assertThat(runs.get(1).get("metrics").get(name).asDouble())
                    .as(name)
                    .isCloseTo(value, within(1e-12)));
  }

  /**
   * Sum over query tokens of the largest dot product with any document token (row-major matrices).
   */
  private static double maxSim(float[] query, float[] doc, int dim) {
    double sum = 0;
    for (int t = 0; t < query.length / dim; t++) {
      double best = Double.NEGATIVE_INFINITY;
      for (int u = 0; u < doc.length / dim; u++) {
        double dot = 0;
        for (int k = 0; k < dim; k++) {
          dot += query[t * dim + k] * doc[u * dim + k];
        }
        best = Math.max(best, dot);
      }
      sum += best;
    }
    return sum;
  }
}
