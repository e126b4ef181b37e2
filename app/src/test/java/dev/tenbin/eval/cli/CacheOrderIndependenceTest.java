package dev.tenbin.eval.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenbin.testing.data.TinyBeir;
import dev.tenbin.testing.models.TinyModels;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A cell of a batch-dependent model does not depend on which earlier run filled the embedding
 * cache: an eval whose cache was filled by another run (other texts, so other batches) writes the
 * same run files, byte for byte, as an eval on a fresh cache. The model adds the mean of its whole
 * pass to every value, so its vectors would move with their batches if it were batched.
 */
class CacheOrderIndependenceTest {
  @TempDir Path tmp;

  @Test
  void anEvalWritesTheSameRunFilesWhateverRunFilledTheCacheBefore() throws Exception {
    Path models = tmp.resolve("models");
    TinyModels.batchDependent(models, "tiny-batch-dependent");
    Path full = TinyBeir.write(tmp.resolve("data").resolve("full"));
    // Half the corpus and two queries: encoded in batches the full collection never forms.
    Path part = TinyBeir.write(tmp.resolve("data").resolve("part"));
    keepLines(part.resolve("corpus.jsonl"), 0, 2);
    keepLines(part.resolve("queries.jsonl"), 0, 2);

    Path fresh = tmp.resolve("out-fresh");
    eval(full, models, tmp.resolve("cache-fresh"), fresh);

    Path filled = tmp.resolve("cache-filled");
    eval(part, models, filled, tmp.resolve("out-part"));
    Path afterFill = tmp.resolve("out-after-fill");
    eval(full, models, filled, afterFill);

    Map<String, String> freshRuns = runFiles(fresh);
    assertThat(freshRuns).isNotEmpty();
    assertThat(runFiles(afterFill)).isEqualTo(freshRuns);
  }

  private static void eval(Path data, Path models, Path cache, Path out) {
    CliRunner result =
        CliRunner.run(
            "eval",
            "--dataset",
            data.toString(),
            "--retriever",
            "dense:tiny-batch-dependent",
            "--models-dir",
            models.toString(),
            "--cache-dir",
            cache.toString(),
            "--out",
            out.toString());
    assertThat(result.exitCode()).as(result.err()).isZero();
  }

  private static void keepLines(Path file, int from, int to) throws IOException {
    List<String> lines = Files.readAllLines(file);
    Files.write(file, lines.subList(from, to));
  }

  /** Every run file under {@code out/runs}, by name. */
  private static Map<String, String> runFiles(Path out) throws IOException {
    Map<String, String> runs = new TreeMap<>();
    try (Stream<Path> files = Files.list(out.resolve("runs"))) {
      for (Path file : files.toList()) {
        runs.put(file.getFileName().toString(), Files.readString(file));
      }
    }
    return runs;
  }
}
