package dev.tenbin.eval.aggregate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tenbin.core.InvalidInputException;
import java.nio.file.Files;
import java.nio.file.Path;
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
