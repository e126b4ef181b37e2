package dev.tenbin.eval.cli;

import static dev.tenbin.eval.testing.SyntheticCells.cell;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tenbin.eval.store.ResultStore;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ReportCommandTest {
  @TempDir Path dir;
  Path jobA;
  Path jobB;

  @BeforeEach
  void twoJobs() {
    jobA = dir.resolve("job-a");
    jobB = dir.resolve("job-b");
    ResultStore a = ResultStore.open(jobA);
    ResultStore b = ResultStore.open(jobB);
    for (String task : new String[] {"t1", "t2"}) {
      a.append(cell("bench", task, "bm25", "base", 0.40).build());
      a.append(cell("bench", task, "dense:e5", "base", 0.60).build());
      b.append(cell("bench", task, "dense:e5", "int8", 0.58).build());
      b.append(cell("bench", task, "dense:e5", "base", 0.60).mode("rerank").build());
    }
  }

  @Test
  void printsTheTableOfSeveralJobs() {
    CliRunner run = CliRunner.run("report", jobA.toString(), jobB.toString(), "--bootstrap", "100");

    assertThat(run.exitCode()).as(run.err()).isZero();
    assertThat(run.out()).contains("ranked by macro", "dense:e5", "int8", "-2.00", "bm25", "2/2");
  }

  @Test
  void filtersByModeAndWritesJson() throws Exception {
    CliRunner run =
        CliRunner.run(
            "report",
            jobA.toString(),
            jobB.toString(),
            "--mode",
            "rerank",
            "--format",
            "json",
            "--aggregate",
            "micro");

    assertThat(run.exitCode()).as(run.err()).isZero();
    JsonNode json = new ObjectMapper().readTree(run.out());
    assertThat(json.get("aggregate").asText()).isEqualTo("micro");
    assertThat(json.get("rows")).hasSize(1);
    assertThat(json.get("rows").get(0).get("mode").asText()).isEqualTo("rerank");
  }

  @Test
  void writesHtmlAndMarkdownFiles() throws Exception {
    Path html = dir.resolve("out/board.html");
    Path md = dir.resolve("out/board.md");

    assertThat(
            CliRunner.run("report", jobA.toString(), "--format", "html", "--out", html.toString())
                .exitCode())
        .isZero();
    assertThat(
            CliRunner.run("report", jobA.toString(), "--format", "markdown", "--out", md.toString())
                .exitCode())
        .isZero();

    assertThat(Files.readString(html)).startsWith("<!DOCTYPE html>").contains("leaderboard-data");
    assertThat(Files.readString(md)).contains("board-pareto-bytes.svg");
    assertThat(dir.resolve("out/board-pareto-latency.svg")).exists();
  }

  @Test
  void correlatesWithAnOfficialRanking() throws Exception {
    Path csv = Files.writeString(dir.resolve("official.csv"), "model,rank\ne5,1\nbm25,2\n");
    CliRunner run = CliRunner.run("report", jobA.toString(), "--official", csv.toString());

    assertThat(run.exitCode()).as(run.err()).isZero();
    assertThat(run.out()).contains("Spearman 1.000", "over 2 models");
  }

  @Test
  void badInputExitsWithTwoAndNamesTheOption() throws Exception {
    CliRunner aggregate = CliRunner.run("report", jobA.toString(), "--aggregate", "median");
    assertThat(aggregate.exitCode()).isEqualTo(2);
    assertThat(aggregate.err())
        .contains("--aggregate must be macro or micro")
        .doesNotContain("Exception");

    CliRunner metric = CliRunner.run("report", jobA.toString(), "--metric", "ndcg@7");
    assertThat(metric.exitCode()).isEqualTo(2);
    assertThat(metric.err()).contains("--metric ndcg@7 is not in the stored cells");

    CliRunner noJob = CliRunner.run("report", dir.resolve("nothing").toString());
    assertThat(noJob.exitCode()).isEqualTo(2);
    assertThat(noJob.err()).contains("holds no job results");

    CliRunner language = CliRunner.run("report", jobA.toString(), "--language", "xx");
    assertThat(language.exitCode()).isEqualTo(2);
    assertThat(language.err()).contains("no stored cell matches language=xx");

    Path csv = Files.writeString(dir.resolve("bad.csv"), "name,points\n");
    CliRunner official = CliRunner.run("report", jobA.toString(), "--official", csv.toString());
    assertThat(official.exitCode()).isEqualTo(2);
    assertThat(official.err()).contains("--official").contains("model,score");

    CliRunner format = CliRunner.run("report", jobA.toString(), "--format", "pdf");
    assertThat(format.exitCode()).isEqualTo(2);
    assertThat(format.err()).contains("--format must be table, markdown, html or json");
  }

  @Test
  void modeFilterTakesTheModesCellsHave() {
    CliRunner candidates = CliRunner.run("report", jobA.toString(), "--mode", "candidates");
    assertThat(candidates.exitCode()).isEqualTo(2);
    assertThat(candidates.err())
        .contains("--mode", "retrieval, rerank, rerank_without_safeguard")
        .doesNotContain("Exception");

    CliRunner withoutSafeguard =
        CliRunner.run("report", jobB.toString(), "--mode", "rerank_without_safeguard");
    assertThat(withoutSafeguard.err())
        .contains("no stored cell matches mode=rerank_without_safeguard");
  }
}
