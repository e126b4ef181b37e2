package dev.tenbin.eval.aggregate;

import static dev.tenbin.eval.testing.SyntheticCells.cell;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tenbin.core.InvalidInputException;
import dev.tenbin.eval.export.MtebExport;
import dev.tenbin.eval.store.CellRecord;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class MtebResultsTest {
  @TempDir Path tmp;

  private void result(String model, String revision, String task, double... mainScores)
      throws Exception {
    Path folder = tmp.resolve(model).resolve(revision);
    Files.createDirectories(folder);
    StringBuilder subsets = new StringBuilder();
    for (double score : mainScores) {
      subsets
          .append(subsets.isEmpty() ? "" : ",")
          .append("{\"main_score\": ")
          .append(score)
          .append(", \"hf_subset\": \"default\", \"languages\": [\"eng-Latn\"]}");
    }
    Files.writeString(
        folder.resolve(task + ".json"),
        "{\"dataset_revision\": \"abc\", \"task_name\": \""
            + task
            + "\", \"mteb_version\": \"1.12.0\", \"scores\": {\"test\": ["
            + subsets
            + "]}, \"evaluation_time\": 1.0, \"kg_co2_emissions\": null}");
  }

  @Test
  void aModelScoresItsMeanMainScoreOverTheTasksEveryModelHas() throws Exception {
    result("BAAI__bge-small-en-v1.5", "rev1", "SciFact", 0.6);
    result("BAAI__bge-small-en-v1.5", "rev1", "FiQA", 0.2, 0.4);
    result("BAAI__bge-small-en-v1.5", "rev1", "ArguAna", 0.9);
    result("intfloat__e5-small-v2", "rev2", "SciFact", 0.5);
    result("intfloat__e5-small-v2", "rev2", "FiQA", 0.1);
    Files.writeString(tmp.resolve("intfloat__e5-small-v2/rev2/model_meta.json"), "{}");

    OfficialRanking ranking = MtebResults.read(tmp, "--official");

    assertThat(ranking.column()).isEqualTo("score");
    assertThat(ranking.values()).containsOnlyKeys("bge-small-en-v1.5", "e5-small-v2");
    // ArguAna is left out (e5 lacks it); FiQA of bge is the mean of its two subsets.
    assertThat(ranking.values().get("bge-small-en-v1.5")).isCloseTo(0.45, within());
    assertThat(ranking.values().get("e5-small-v2")).isCloseTo(0.3, within());
    assertThat(ranking.source()).contains("mean of 2 tasks");
  }

  /** What {@code tenbin export mteb --out} writes for {@code cells}. */
  private void export(List<CellRecord> cells) throws Exception {
    ObjectMapper json = new ObjectMapper();
    for (CellRecord cell : cells) {
      Path file = tmp.resolve(MtebExport.relativePath(cell));
      Files.createDirectories(file.getParent());
      json.writeValue(file.toFile(), MtebExport.toJson(cell));
      json.writeValue(
          tmp.resolve(MtebExport.modelFolder(cell)).resolve(MtebExport.MODEL_META_FILE).toFile(),
          MtebExport.modelMeta(cell));
    }
  }

  @Test
  void exportedVariantsAndModesReadBackAsExperimentsMatchedToTheirOwnRows() throws Exception {
    List<CellRecord> cells = new ArrayList<>();
    String[] variants = {"base", "int8", "binary", "truncate=128"};
    for (String task : List.of("SciFact", "FiQA")) {
      for (int v = 0; v < variants.length; v++) {
        double score = 0.55 + 0.031 * (task.length() % 3) - 0.047 * v;
        cells.add(cell("b", task, "dense:bge-small-en-v1.5", variants[v], score).build());
        cells.add(cell("b", task, "dense:e5-small-v2", variants[v], score - 0.013).build());
      }
      cells.add(cell("b", task, "bm25", "base", 0.41).build());
      cells.add(cell("b", task, "dense:e5-small-v2", "base", 0.6).mode("rerank").build());
    }
    export(cells);

    OfficialRanking ranking = MtebResults.read(tmp, "--official");
    assertThat(ranking.values())
        .containsKeys(
            "bge-small-en-v1.5",
            "bge-small-en-v1.5 (variant=int8)",
            "bge-small-en-v1.5 (variant=truncate=128)",
            "e5-small-v2 (mode=rerank)",
            "bm25")
        .hasSize(10);
    Leaderboard board =
        Leaderboard.of(
            cells, LeaderboardOptions.defaults().withBootstrapDraws(0).withOfficial(ranking));
    OfficialCorrelation correlation = board.correlation();

    // every exported row comes back as itself: nothing is "not ours", no row is matched twice
    assertThat(correlation.unmatched()).isEmpty();
    assertThat(correlation.matches()).hasSize(10);
    assertThat(correlation.matches().stream().map(m -> m.row().id()).distinct()).hasSize(10);
    assertThat(correlation.matches())
        .filteredOn(m -> m.model().equals("bge-small-en-v1.5 (variant=int8)"))
        .extracting(m -> m.row().id())
        .containsExactly("dense:bge-small-en-v1.5/int8/retrieval");
    assertThat(correlation.matches())
        .filteredOn(m -> m.model().equals("e5-small-v2 (mode=rerank)"))
        .extracting(m -> m.row().id())
        .containsExactly("dense:e5-small-v2/base/rerank");
    // ours is the official score x 100: a perfect correlation, and never past 1
    assertThat(correlation.pearson()).isCloseTo(1.0, within()).isLessThanOrEqualTo(1.0);
    assertThat(correlation.spearman()).isCloseTo(1.0, within()).isLessThanOrEqualTo(1.0);
  }

  @Test
  void anExperimentWithoutModelMetaIsNamedFromItsFolder() throws Exception {
    result("BAAI__bge-small-en-v1.5", "rev1", "SciFact", 0.6);
    result("BAAI__bge-small-en-v1.5", "rev1/experiments/mode_rerank__variant_int8", "SciFact", 0.5);

    OfficialRanking ranking = MtebResults.read(tmp, "--official");

    assertThat(ranking.values())
        .containsOnlyKeys("bge-small-en-v1.5", "bge-small-en-v1.5 (mode=rerank, variant=int8)");
  }

  @Test
  void aFolderWithoutResultsIsAnErrorNamingTheField() {
    assertThatThrownBy(() -> MtebResults.read(tmp, "--official"))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("--official")
        .hasMessageContaining("holds no MTEB result files");
  }

  private static org.assertj.core.data.Offset<Double> within() {
    return org.assertj.core.data.Offset.offset(1e-12);
  }
}
