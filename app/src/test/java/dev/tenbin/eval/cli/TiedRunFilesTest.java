package dev.tenbin.eval.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tenbin.scoring.metrics.RunOrder;
import dev.tenbin.scoring.metrics.ScoredDoc;
import dev.tenbin.scoring.trec.TrecRunReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A run file written by {@code tenbin eval --out} from a ranking with exactly tied scores scores
 * the same under trec_eval's order (re-evaluated by {@code tenbin metrics}) as in Tenbin.
 */
class TiedRunFilesTest {
  @TempDir Path tmp;

  /** Identical documents tie exactly under BM25; the qrels judge the one Tenbin ranks second. */
  private Path tiedDataset() throws Exception {
    Path dir = tmp.resolve("tied");
    Files.createDirectories(dir.resolve("qrels"));
    String apples = "apples grow on apple trees in orchards";
    String trains = "the train leaves the station at noon";
    Files.writeString(
        dir.resolve("corpus.jsonl"),
        String.join(
                "\n",
                "{\"_id\": \"a1\", \"text\": \"" + apples + "\"}",
                "{\"_id\": \"m5\", \"text\": \"" + apples + "\"}",
                "{\"_id\": \"z9\", \"text\": \"" + apples + "\"}",
                "{\"_id\": \"b2\", \"text\": \"" + trains + "\"}",
                "{\"_id\": \"y8\", \"text\": \"" + trains + "\"}",
                "{\"_id\": \"c3\", \"text\": \"cherries are small red fruits\"}")
            + "\n",
        StandardCharsets.UTF_8);
    Files.writeString(
        dir.resolve("queries.jsonl"),
        "{\"_id\": \"q1\", \"text\": \"where do apples grow\"}\n{\"_id\": \"q2\", \"text\": \"train station\"}\n",
        StandardCharsets.UTF_8);
    Files.writeString(
        dir.resolve("qrels").resolve("test.tsv"),
        "query-id\tcorpus-id\tscore\nq1\tm5\t1\nq2\ty8\t2\nq2\tc3\t1\n",
        StandardCharsets.UTF_8);
    return dir;
  }

  @Test
  void evalOutRunFileScoresUnderTrecEvalOrderAsTenbinScoredIt() throws Exception {
    Path data = tiedDataset();
    Path out = tmp.resolve("out");
    CliRunner eval =
        CliRunner.run(
            "eval",
            "--dataset",
            data.toString(),
            "--retriever",
            "bm25",
            "--out",
            out.toString(),
            "--json");
    assertThat(eval.exitCode()).as(eval.err()).isZero();
    JsonNode tenbin = new ObjectMapper().readTree(eval.out()).get("runs").get(0);
    Path runFile = out.resolve("runs/bm25.base.retrieval.trec");

    Map<String, List<ScoredDoc>> written = TrecRunReader.read(runFile);
    assertThat(written.get("q1")).extracting(ScoredDoc::docId).startsWith("a1", "m5", "z9");
    assertThat(written.get("q2")).extracting(ScoredDoc::docId).startsWith("b2", "y8");
    assertThat(tenbin.get("metrics").get("mrr@10").asDouble())
        .as("the judged documents are second among exact ties in Tenbin's order")
        .isEqualTo(0.5);
    assertThat(tenbin.get("tie_aware").get("mrr@10").get("range").asDouble())
        .as("the scores are exactly tied")
        .isPositive();
    for (String query : written.keySet()) {
      assertThat(RunOrder.TREC_EVAL.apply(written.get(query)))
          .as("trec_eval's order of %s is the order written", query)
          .containsExactlyElementsOf(written.get(query));
    }

    CliRunner metrics =
        CliRunner.run(
            "metrics",
            "--qrels",
            data.resolve("qrels/test.tsv").toString(),
            "--run",
            runFile.toString(),
            "--json");

    assertThat(metrics.exitCode()).as(metrics.err()).isZero();
    JsonNode reEvaluated = new ObjectMapper().readTree(metrics.out()).get("metrics");
    tenbin
        .get("metrics")
        .fieldNames()
        .forEachRemaining(
            name ->
                assertThat(reEvaluated.get(name).asDouble())
                    .as(name)
                    .isEqualTo(tenbin.get("metrics").get(name).asDouble()));
  }
}
