package dev.tenbin.eval.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tenbin.eval.store.CellRecord;
import dev.tenbin.eval.store.ResultStore;
import dev.tenbin.eval.store.StoredDoc;
import dev.tenbin.eval.testing.EvaluatedCells;
import dev.tenbin.scoring.metrics.RankingEvaluator;
import dev.tenbin.scoring.metrics.RunOrder;
import dev.tenbin.scoring.metrics.ScoredDoc;
import dev.tenbin.scoring.trec.TrecRunReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ExportCommandTest {
  @TempDir Path tmp;

  private final CellRecord bm25 =
      EvaluatedCells.cell(
          EvaluatedCells.key("NanoSciFact", "bm25", "bm25", "base"),
          EvaluatedCells.QRELS,
          EvaluatedCells.run(0f));
  private final CellRecord int8 =
      EvaluatedCells.cell(
          EvaluatedCells.key("NanoSciFact", "dense", "tiny", "int8"),
          EvaluatedCells.QRELS,
          EvaluatedCells.run(0.25f));
  private final CellRecord binary =
      EvaluatedCells.cell(
          EvaluatedCells.key("NanoSciFact", "dense", "tiny", "binary"),
          EvaluatedCells.QRELS,
          EvaluatedCells.run(0.5f));

  private Path job(CellRecord... cells) {
    ResultStore store = ResultStore.open(tmp.resolve("job"));
    for (CellRecord cell : cells) {
      store.append(cell);
    }
    return tmp.resolve("job");
  }

  private Path export(Path jobDir, String... selection) {
    Path out = tmp.resolve("run.trec");
    String[] args = new String[selection.length + 5];
    args[0] = "export";
    args[1] = "trec";
    args[2] = jobDir.toString();
    System.arraycopy(selection, 0, args, 3, selection.length);
    args[selection.length + 3] = "--out";
    args[selection.length + 4] = out.toString();
    CliRunner result = CliRunner.run(args);
    assertThat(result.exitCode()).as(result.err()).isZero();
    return out;
  }

  @Test
  void theExportedRunReadsBackToTheStoredFp32ScoresInStoredOrder() {
    Path run = export(job(bm25, int8), "--system", "dense:tiny", "--task", "NanoSciFact");

    Map<String, List<ScoredDoc>> readBack = TrecRunReader.read(run);
    assertThat(readBack.keySet()).containsExactly("q1", "q2");
    for (var query : int8.queries()) {
      List<ScoredDoc> docs = readBack.get(query.queryId());
      assertThat(docs)
          .extracting(ScoredDoc::docId)
          .containsExactlyElementsOf(query.docs().stream().map(StoredDoc::docId).toList());
      for (int i = 0; i < docs.size(); i++) {
        assertThat(Float.floatToRawIntBits((float) docs.get(i).score()))
            .isEqualTo(Float.floatToRawIntBits((float) query.docs().get(i).score()));
      }
    }
  }

  @Test
  void metricsOfTheExportedFileReproduceTheStoredMetrics() throws Exception {
    Path run =
        export(job(bm25, int8), "--cell", int8.fingerprint().substring(0, 10), "--tag", "mine");
    Path qrels = tmp.resolve("qrels.txt");
    Files.writeString(qrels, "q1 0 d1 1\nq1 0 d9 0\nq2 0 d4 2\nq2 0 d2 1\n");
    assertThat(Files.readAllLines(run).getFirst()).endsWith(" mine");

    CliRunner metrics =
        CliRunner.run("metrics", "--qrels", qrels.toString(), "--run", run.toString(), "--json");

    assertThat(metrics.exitCode()).as(metrics.err()).isZero();
    JsonNode json = new ObjectMapper().readTree(metrics.out());
    int8.metrics()
        .forEach(
            (name, value) ->
                assertThat(json.get("metrics").get(name).asDouble()).as(name).isEqualTo(value));
    int8.tieAware()
        .forEach(
            (name, value) ->
                assertThat(json.get("tie_aware").get(name).get("expected").asDouble())
                    .as(name)
                    .isEqualTo(value.expected()));
  }

  @Test
  void withExactlyTiedScoresTheExportedRunScoresUnderTrecEvalAsTheStoredCell() throws Exception {
    Map<String, List<ScoredDoc>> tied = new LinkedHashMap<>();
    tied.put(
        "q1",
        List.of(new ScoredDoc("d1", 0.7f), new ScoredDoc("d2", 0.7f), new ScoredDoc("d3", 0.1f)));
    tied.put("q2", List.of(new ScoredDoc("d2", 0.3f), new ScoredDoc("d4", 0.3f)));
    CellRecord cell =
        EvaluatedCells.cell(
            EvaluatedCells.key("NanoSciFact", "bm25", "bm25", "base"), EvaluatedCells.QRELS, tied);
    Path run = export(job(cell), "--system", "bm25", "--task", "NanoSciFact");
    Path qrels = tmp.resolve("qrels.txt");
    Files.writeString(qrels, "q1 0 d1 1\nq1 0 d9 0\nq2 0 d4 2\nq2 0 d2 1\n");

    CliRunner metrics =
        CliRunner.run("metrics", "--qrels", qrels.toString(), "--run", run.toString(), "--json");

    assertThat(metrics.exitCode()).as(metrics.err()).isZero();
    JsonNode json = new ObjectMapper().readTree(metrics.out());
    assertThat(
            RankingEvaluator.standard()
                .evaluate(EvaluatedCells.QRELS, tied, List.of("q1", "q2"), RunOrder.TREC_EVAL)
                .means())
        .as("trec_eval's docno-descending order of the true tied scores would score differently")
        .isNotEqualTo(cell.metrics());
    cell.metrics()
        .forEach(
            (name, value) ->
                assertThat(json.get("metrics").get(name).asDouble()).as(name).isEqualTo(value));
    Map<String, List<ScoredDoc>> readBack = TrecRunReader.read(run);
    for (String query : tied.keySet()) {
      assertThat(RunOrder.TREC_EVAL.apply(readBack.get(query)))
          .as("trec_eval's order of the file is the stored order")
          .extracting(ScoredDoc::docId)
          .containsExactlyElementsOf(tied.get(query).stream().map(ScoredDoc::docId).toList());
    }
    assertThat(
            ResultStore.open(tmp.resolve("job"))
                .read(cell.fingerprint())
                .orElseThrow()
                .queries()
                .getFirst()
                .docs())
        .as("the stored cell keeps the true, tied FP32 scores")
        .extracting(StoredDoc::score)
        .containsExactly((double) 0.7f, (double) 0.7f, (double) 0.1f);
  }

  @Test
  void anAmbiguousSelectionListsTheCandidates() {
    CliRunner result =
        CliRunner.run(
            "export",
            "trec",
            job(bm25, int8, binary).toString(),
            "--system",
            "dense:tiny",
            "--task",
            "NanoSciFact");

    assertThat(result.exitCode()).isEqualTo(TenbinCli.EXIT_USAGE);
    assertThat(result.err())
        .contains("matches 2 cells")
        .contains(
            int8.fingerprint().substring(0, 12)
                + "  dense:tiny/int8 on NanoBEIR-en/NanoSciFact (retrieval)")
        .contains("dense:tiny/binary");
  }

  @Test
  void anUnknownSelectionListsWhatTheJobHolds() {
    CliRunner result =
        CliRunner.run(
            "export",
            "trec",
            job(bm25, int8).toString(),
            "--system",
            "dense:other",
            "--task",
            "NanoSciFact");

    assertThat(result.exitCode()).isEqualTo(TenbinCli.EXIT_USAGE);
    assertThat(result.err())
        .contains(
            "no stored cell matches --system dense:other --task NanoSciFact",
            "bm25/base",
            "dense:tiny/int8");
  }

  @Test
  void aVariantNarrowsTheSelectionAndWithoutOutTheRunGoesToStdout() {
    CliRunner result =
        CliRunner.run(
            "export",
            "trec",
            job(bm25, int8, binary).toString(),
            "--system",
            "dense:tiny",
            "--task",
            "NanoSciFact",
            "--variant",
            "binary");

    assertThat(result.exitCode()).as(result.err()).isZero();
    assertThat(result.out().lines().toList())
        .hasSize(6)
        .first()
        .isEqualTo("q1 Q0 d1 1 " + (0.91f + 0.5f) + " dense:tiny/binary");
  }

  @Test
  void aSelectionWithoutCellOrSystemIsBadInput() {
    CliRunner result =
        CliRunner.run("export", "trec", job(bm25).toString(), "--task", "NanoSciFact");

    assertThat(result.exitCode()).isEqualTo(TenbinCli.EXIT_USAGE);
    assertThat(result.err()).contains("--cell FINGERPRINT_PREFIX, or --system S --task T");
  }
}
