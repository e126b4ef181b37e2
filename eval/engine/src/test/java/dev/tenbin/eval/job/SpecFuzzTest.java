package dev.tenbin.eval.job;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.DictionaryEntries;
import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.tenbin.core.InvalidInputException;
import dev.tenbin.eval.taskset.TaskSetParser;
import dev.tenbin.eval.taskset.TaskSetSpec;
import dev.tenbin.eval.taskset.TaskSpec;
import dev.tenbin.testing.data.Scratch;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/**
 * Fuzzes the YAML readers of task sets and job specs. Contract: an {@link InvalidInputException}
 * naming the field, or a spec that passed every check (tasks named uniquely, a task set to run,
 * something to evaluate, depths and weights in range).
 */
class SpecFuzzTest {
  @DictionaryEntries({
    "name: ",
    "tasks:",
    "- name: ",
    "language: ",
    "source: {path: ",
    "hub: ",
    "revision: ",
    "tasks_from: ",
    "folders:",
    "dataset: ",
    "${DATA}",
    "${NOPE}",
    "~/",
    "\"\\0\"",
    "&a ",
    "*a",
    "!!binary ",
    "? ",
    "data/t1"
  })
  @FuzzTest
  void taskSetYaml(byte[] yaml) throws Exception {
    Path dir = Scratch.fresh("taskset");
    Path data = Files.createDirectories(dir.resolve("data").resolve("t1"));
    Files.writeString(data.resolve("corpus.jsonl"), "{\"_id\":\"d1\",\"text\":\"x\"}\n");
    Path file = dir.resolve("spec.yaml");
    Files.write(file, yaml);
    TaskSetParser parser =
        new TaskSetParser(Map.of("DATA", dir.resolve("data").toString()), dir.resolve("home"));
    TaskSetSpec spec;
    try {
      spec = parser.parse(file);
    } catch (InvalidInputException refused) {
      assertThat(refused.field()).isNotNull();
      assertThat(refused.getMessage()).isNotBlank();
      return;
    }
    assertThat(spec.name()).isNotBlank();
    assertThat(spec.tasks()).isNotEmpty();
    assertThat(spec.tasks().stream().map(TaskSpec::name).distinct()).hasSameSizeAs(spec.tasks());
  }

  @DictionaryEntries({
    "task_sets: ",
    "retrievers: ",
    "rerankers: ",
    "candidates: {dense_model: ",
    "sets: ",
    "variants: ",
    "{retriever: ",
    "dense:",
    "sparse:",
    "light:",
    "bm25",
    "top_k: ",
    "similarity: ",
    "light_hybrid_dense_weight: ",
    "\"\\0\"",
    ".nan",
    ".inf",
    "1e400",
    "&a ",
    "*a",
    "!!binary "
  })
  @FuzzTest
  void jobSpecYaml(byte[] yaml) {
    Path file = Scratch.fresh("job").resolve("job.yaml");
    JobSpec spec;
    try {
      spec = JobSpec.parse(new String(yaml, StandardCharsets.UTF_8), file);
    } catch (InvalidInputException refused) {
      assertThat(refused.field()).isNotNull();
      assertThat(refused.getMessage()).startsWith("job spec " + file);
      return;
    }
    assertThat(spec.taskSets()).isNotEmpty();
    assertThat(spec.retrievers().size() + spec.rerankers().size()).isPositive();
    assertThat(spec.topK()).isBetween(1, 1000);
    assertThat(spec.lightHybridDenseWeight()).isBetween(0.0, 1.0);
  }
}
