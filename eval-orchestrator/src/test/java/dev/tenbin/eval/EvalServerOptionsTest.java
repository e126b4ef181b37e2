package dev.tenbin.eval;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** The eval service's folders from its options: repeatable data roots, results root under the state folder by default. */
class EvalServerOptionsTest {
  private static EvalServer parse(String... args) {
    EvalServer server = new EvalServer();
    new CommandLine(server).parseArgs(args);
    return server;
  }

  @Test
  void dataRootsRepeatAndSplitOnThePathSeparatorAndTheResultsRootDefaultsUnderTheState() {
    var folders = parse("--state-dir", "/srv/eval", "--data-root", "/d/a:/d/b", "--data-root", "/d/c").folders();
    assertThat(folders.dataRoots()).containsExactly(Path.of("/d/a"), Path.of("/d/b"), Path.of("/d/c"));
    assertThat(folders.stateDirectory()).isEqualTo(Path.of("/srv/eval"));
    assertThat(folders.resultsRoot()).isEqualTo(Path.of("/srv/eval/results"));
    assertThat(parse("--results-root", "/r").folders().resultsRoot()).isEqualTo(Path.of("/r"));
  }

  @Test
  void withoutDataRootsLocalDatasetsAreRefusedAsTheHelpSays() {
    assertThat(parse().folders().dataRoots()).isEqualTo(List.of());
    String help = new CommandLine(new EvalServer()).getUsageMessage();
    assertThat(help).contains("--data-root").contains("--results-root").contains("--state-dir").contains("refused");
  }
}
