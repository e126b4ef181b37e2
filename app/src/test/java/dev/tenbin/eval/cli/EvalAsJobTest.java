package dev.tenbin.eval.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tenbin.testing.data.TinyBeir;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code tenbin eval} runs as a one-task job: fingerprinted cells with versions, through the
 * embedding cache.
 */
class EvalAsJobTest {
  @TempDir Path tmp;

  @Test
  void everyRunCarriesItsCellFingerprintAndVersionsAndTheFingerprintIsStable() throws Exception {
    Path data = TinyBeir.write(tmp.resolve("tiny"));
    JsonNode first =
        run("eval", "--dataset", data.toString(), "--retriever", "bm25", "--json")
            .get("runs")
            .get(0);
    JsonNode second =
        run("eval", "--dataset", data.toString(), "--retriever", "bm25", "--json", "--top-k", "50")
            .get("runs")
            .get(0);
    JsonNode again =
        run("eval", "--dataset", data.toString(), "--retriever", "bm25", "--json")
            .get("runs")
            .get(0);

    assertThat(first.get("fingerprint").asText()).matches("[0-9a-f]{64}");
    assertThat(again.get("fingerprint")).isEqualTo(first.get("fingerprint"));
    assertThat(second.get("fingerprint"))
        .as("the depth is part of the identity")
        .isNotEqualTo(first.get("fingerprint"));
    assertThat(first.get("versions").get("lucene_version").asText()).isNotBlank();
    assertThat(first.get("versions").get("tenbin_version").asText()).isNotBlank();
    assertThat(first.get("versions").get("dataset_sha").asText()).isNotBlank();
  }

  @Test
  void denseEvalEncodesThroughTheEmbeddingCacheOfTheCacheFolder() throws Exception {
    Path data = TinyBeir.write(tmp.resolve("tiny"));
    Path cache = tmp.resolve("cache");
    JsonNode runs =
        run(
                "eval",
                "--dataset",
                data.toString(),
                "--retriever",
                "dense:all-minilm-l6-v2",
                "--variant",
                "base",
                "--json",
                "--cache-dir",
                cache.toString())
            .get("runs");
    assertThat(runs).hasSize(1);
    try (Stream<Path> files = Files.walk(cache.resolve("embeddings"))) {
      assertThat(files.filter(Files::isRegularFile).count()).as("cached embeddings").isPositive();
    }
    JsonNode cached =
        run(
                "eval",
                "--dataset",
                data.toString(),
                "--retriever",
                "dense:all-minilm-l6-v2",
                "--variant",
                "base",
                "--json",
                "--cache-dir",
                cache.toString())
            .get("runs");
    assertThat(cached.get(0).get("metrics")).isEqualTo(runs.get(0).get("metrics"));
    assertThat(cached.get(0).get("fingerprint")).isEqualTo(runs.get(0).get("fingerprint"));
    try (Stream<Path> left = Files.list(cache.resolve("eval-jobs"))) {
      assertThat(left).as("the scratch job folders are deleted").isEmpty();
    }
  }

  private static JsonNode run(String... args) throws Exception {
    CliRunner result = CliRunner.run(args);
    assertThat(result.exitCode()).as(result.err()).isZero();
    return new ObjectMapper().readTree(result.out());
  }
}
