package dev.tenbin.eval.job;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenbin.eval.taskset.TaskSetParser;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** The job specs in {@code examples/jobs/} parse and name task sets that exist and parse too. */
class ExampleJobsTest {
  private static final Path JOBS =
      Path.of("..", "..", "examples", "jobs").toAbsolutePath().normalize();

  @Test
  void everyExampleJobParsesAndItsTaskSetsExist() throws Exception {
    List<Path> files;
    try (Stream<Path> list = Files.list(JOBS)) {
      files = list.filter(p -> p.toString().endsWith(".yaml")).sorted().toList();
    }
    assertThat(files).isNotEmpty();
    for (Path file : files) {
      JobSpec spec = JobSpec.read(file);
      assertThat(spec.retrievers()).as(file.toString()).isNotEmpty();
      for (Path taskSet : spec.taskSets()) {
        assertThat(taskSet).as(file + " names " + taskSet).isRegularFile();
        assertThat(new TaskSetParser().parse(taskSet).tasks()).isNotEmpty();
      }
    }
  }
}
