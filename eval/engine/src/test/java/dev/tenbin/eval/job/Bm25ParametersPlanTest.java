package dev.tenbin.eval.job;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tenbin.core.InvalidInputException;
import dev.tenbin.eval.plan.PlannedCell;
import dev.tenbin.eval.retrieval.Bm25Settings;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** BM25's k1 / b in job specs: a system of its own, and no change to default BM25 cells. */
class Bm25ParametersPlanTest {
  private static Map<String, String> fingerprints(String retrievers) {
    String spec = "name: j\ntask_sets: [tasks.yaml]\nretrievers:\n" + retrievers;
    Map<String, String> out = new LinkedHashMap<>();
    for (PlannedCell cell :
        PlanFixtures.cells(
            PlanFixtures.plan(
                spec,
                PlanFixtures.noModels(),
                PlanFixtures.noModels(),
                PlanFixtures.emptyTask("sha-1")))) {
      out.put(cell.key().system().name(), cell.fingerprint());
    }
    return out;
  }

  @Test
  void explicitDefaultsAreTheSameCellAsPlainBm25AndOtherValuesAnotherSystem() {
    Map<String, String> plain = fingerprints("  - bm25\n");
    Map<String, String> explicitDefaults = fingerprints("  - {retriever: bm25, k1: 0.9, b: 0.4}\n");
    Map<String, String> both = fingerprints("  - bm25\n  - {retriever: bm25, k1: 1.2, b: 0.75}\n");

    assertThat(explicitDefaults).isEqualTo(plain);
    assertThat(both.keySet()).containsExactly("bm25", "bm25:k1=1.2,b=0.75");
    assertThat(both.get("bm25")).isEqualTo(plain.get("bm25"));
    assertThat(both.get("bm25:k1=1.2,b=0.75")).isNotEqualTo(plain.get("bm25"));
    assertThat(fingerprints("  - {retriever: bm25, b: 0.75}\n").get("bm25:k1=0.9,b=0.75"))
        .isNotEqualTo(both.get("bm25:k1=1.2,b=0.75"))
        .isNotNull();
  }

  @Test
  void parametersAreReadBackFromTheSpecAndCheckedWithTheFieldNamed() {
    JobSpec spec =
        JobSpec.parse(
            "task_sets: [t.yaml]\nretrievers: [{retriever: bm25, k1: 1.2, b: 0.75}]\n",
            Path.of("/j.yaml"));
    assertThat(spec.retrievers().getFirst().bm25()).isEqualTo(new Bm25Settings(1.2f, 0.75f));

    assertThatThrownBy(
            () ->
                JobSpec.parse(
                    "task_sets: [t.yaml]\nretrievers: [{retriever: bm25, b: 1.5}]\n",
                    Path.of("/j.yaml")))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("field retrievers[0].b")
        .hasMessageContaining("within [0, 1]");
    assertThatThrownBy(
            () ->
                JobSpec.parse(
                    "task_sets: [t.yaml]\nretrievers: [{retriever: 'dense:m', k1: 1.2}]\n",
                    Path.of("/j.yaml")))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("k1 and b are parameters of bm25 only");
  }

  @Test
  void settingsReadBackFromTheirDescription() {
    Bm25Settings tuned = new Bm25Settings(1.2f, 0.75f);
    assertThat(Bm25Settings.parse(tuned.describe())).isEqualTo(tuned);
    assertThat(Bm25Settings.parse("")).isEqualTo(Bm25Settings.DEFAULTS);
    assertThat(Bm25Settings.DEFAULTS.isDefault()).isTrue();
  }
}
