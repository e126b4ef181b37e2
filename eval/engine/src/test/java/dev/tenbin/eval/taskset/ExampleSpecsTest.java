package dev.tenbin.eval.taskset;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenbin.eval.taskset.DatasetSource.HubDataset;
import dev.tenbin.eval.taskset.DatasetSource.LocalBeir;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** The spec files in the repository's {@code examples/} folder parse; their data need not exist. */
class ExampleSpecsTest {
  private static final Path EXAMPLES = Path.of("..", "..", "examples").toAbsolutePath().normalize();
  private final TaskSetParser parser = new TaskSetParser();

  @Test
  void everyExampleSpecParses() throws IOException {
    List<Path> specs;
    try (Stream<Path> files = Files.list(EXAMPLES)) {
      specs =
          files
              .filter(f -> f.toString().endsWith(".yaml") || f.toString().endsWith(".yml"))
              .sorted()
              .toList();
    }
    assertThat(specs)
        .extracting(p -> p.getFileName().toString())
        .contains("local-beir.yaml", "nanobeir-en.yaml", "nanobeir-en-hakari.yaml");
    for (Path spec : specs) {
      assertThat(parser.parse(spec).tasks()).as(spec.toString()).isNotEmpty();
    }
  }

  @Test
  void nanoBeirEnglishIsThirteenPinnedHubTasks() {
    TaskSetSpec set = parser.parse(EXAMPLES.resolve("nanobeir-en.yaml"));
    assertThat(set.tasks())
        .hasSize(13)
        .allMatch(task -> task.language().equals("en") && !task.domain().isEmpty());
    assertThat(set.citation()).contains("BEIR");
    assertThat(set.tasks())
        .extracting(task -> (HubDataset) task.source())
        .allMatch(
            source ->
                source.repository().startsWith("zeta-alpha-ai/Nano")
                    && source.split().equals("train"))
        .allMatch(source -> source.revision().matches("[0-9a-f]{40}"));

    TaskSetSpec hakari = parser.parse(EXAMPLES.resolve("nanobeir-en-hakari.yaml"));
    assertThat(hakari.tasks())
        .extracting(TaskSpec::name)
        .isEqualTo(set.tasks().stream().map(TaskSpec::name).toList());
    assertThat(hakari.tasks())
        .extracting(task -> (HubDataset) task.source())
        .allMatch(source -> source.repository().equals("hakari-bench/NanoBEIR-en"));
  }

  @Test
  void localCollectionsResolveAgainstTheExamplesFolder() {
    TaskSetSpec set = parser.parse(EXAMPLES.resolve("local-beir.yaml"));
    assertThat(set.tasks())
        .extracting(TaskSpec::name)
        .containsExactly("msmarco-5k", "arcd-ar", "xquad-en", "xquad-de", "xquad-zh");
    assertThat(set.tasks())
        .filteredOn(task -> task.dataset().equals("xquad"))
        .extracting(TaskSpec::language)
        .containsExactly("en", "de", "zh");
    assertThat(((LocalBeir) set.task("arcd-ar").orElseThrow().source()).directory())
        .isEqualTo(EXAMPLES.getParent().resolve("data/arcd-ar"));
  }
}
