package dev.tenbin.eval.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tenbin.eval.candidates.CandidateSet;
import dev.tenbin.testing.data.TinyBeir;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Candidate sets built once through the services, then a bi-encoder reranking them. */
class CandidatesAndRerankTest {
  @TempDir Path tmp;

  @Test
  void candidateSetsAreBuiltOnceAndRerankedWithAndWithoutTheSafeguard() throws Exception {
    Path data = TinyBeir.write(tmp.resolve("tiny"));
    Path cache = tmp.resolve("cache");
    CliRunner build =
        CliRunner.run(
            "candidates", "build", "--dataset", data.toString(), "--cache-dir", cache.toString());
    assertThat(build.exitCode()).as(build.err()).isZero();
    // Without --candidates-dir the sets go under the cache folder; the dataset folder is untouched.
    assertThat(data.resolve("candidates")).doesNotExist();
    Path sets = CandidateSet.defaultDirectory(data, cache);
    assertThat(sets.getParent()).isEqualTo(cache.resolve("candidates"));
    assertThat(sets.getFileName().toString()).matches("tiny-[0-9a-f]{12}");
    assertThat(build.err()).contains(sets.toString());
    CandidateSet hybrid = CandidateSet.read(CandidateSet.file(sets, "hybrid"));
    assertThat(hybrid.header().path("dense_model").asText()).isEqualTo("bge-small-en-v1.5");
    assertThat(hybrid.header().path("fusion").asText()).contains("k=100");
    assertThat(hybrid.queries()).hasSize(3);
    // The four-document corpus puts every document in every top-100: no safeguard is needed.
    assertThat(hybrid.queries()).allSatisfy(q -> assertThat(q.top()).hasSize(4));
    assertThat(CandidateSet.read(CandidateSet.file(sets, "bm25")).kind()).isEqualTo("bm25");

    CliRunner rerank =
        CliRunner.run(
            "eval",
            "--dataset",
            data.toString(),
            "--rerank",
            "dense:all-minilm-l6-v2",
            "--cache-dir",
            cache.toString(),
            "--json");
    assertThat(rerank.exitCode()).as(rerank.err()).isZero();
    JsonNode runs = new ObjectMapper().readTree(rerank.out()).get("runs");
    assertThat(runs).hasSize(2);
    assertThat(runs.get(0).get("mode").asText()).isEqualTo("rerank");
    assertThat(runs.get(1).get("mode").asText()).isEqualTo("rerank_without_safeguard");
    assertThat(runs.get(0).get("diagnostics").get("query_coverage").asDouble()).isEqualTo(1.0);
    // q3 judges a document absent from the corpus: 3 of 4 relevant documents are in the sets.
    assertThat(runs.get(0).get("diagnostics").get("relevant_document_coverage").asDouble())
        .isEqualTo(0.75);
    assertThat(runs.get(0).get("metrics").get("accuracy@10").asDouble()).isEqualTo(1.0);
  }

  @Test
  void rerankingWithoutACandidateSetSaysHowToBuildIt() throws Exception {
    Path data = TinyBeir.write(tmp.resolve("tiny"));
    CliRunner rerank =
        CliRunner.run(
            "eval",
            "--dataset",
            data.toString(),
            "--rerank",
            "dense:all-minilm-l6-v2",
            "--candidates-dir",
            tmp.resolve("none").toString());
    assertThat(rerank.exitCode()).isEqualTo(2);
    assertThat(rerank.err()).contains("tenbin candidates build");
  }
}
