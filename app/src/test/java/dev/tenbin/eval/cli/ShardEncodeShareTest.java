package dev.tenbin.eval.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenbin.scoring.beir.SyntheticBeir;
import dev.tenbin.testing.models.TinyModels;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code tenbin run --shard I/K} spreads the corpus slices of a dense encode over the shards (the
 * pods of an Indexed Job): before its own work items each shard encodes into the shared embedding
 * cache the slices of every dense or LightRetriever work item's corpus whose number leaves I when
 * divided by K, and the shard that runs the work item reads them back and encodes only the rest.
 * The cells equal a run in one process, byte for byte.
 */
class ShardEncodeShareTest {
  /** Four corpus slices of 4,096 documents: three whole ones and 300. */
  private static final int DOCUMENTS = 3 * 4_096 + 300;

  @TempDir Path tmp;
  private Path spec;

  @BeforeEach
  void writeJob() throws IOException {
    SyntheticBeir.write(tmp.resolve("data"), DOCUMENTS, 8, 12, 11);
    TinyModels.dense(TinyJob.models(tmp), "tiny-dense", false);
    Files.writeString(
        tmp.resolve("tasks.yaml"),
        "name: big\ntasks:\n  - {name: t, language: en, source: {path: data}}\n");
    spec = tmp.resolve("job.yaml");
    Files.writeString(
        spec,
        "task_sets: [tasks.yaml]\nretrievers:\n  - {retriever: dense:tiny-dense, variants: [base]}\n");
  }

  private CliRunner run(Path out, String cache, String... more) {
    CliRunner run = TinyJob.run(tmp, spec, out, tmp.resolve(cache), more);
    assertThat(run.exitCode()).as(run.err()).isZero();
    return run;
  }

  /** The lines of every slice ledger under the cache folder {@code cache}. */
  private List<String> recordedSlices(String cache) throws IOException {
    if (!Files.isDirectory(tmp.resolve(cache))) {
      return List.of();
    }
    try (Stream<Path> files = Files.walk(tmp.resolve(cache))) {
      return files
          .filter(file -> file.getFileName().toString().equals("slices.tsv"))
          .flatMap(
              file -> {
                try {
                  return Files.readAllLines(file).stream();
                } catch (IOException e) {
                  throw new java.io.UncheckedIOException(e);
                }
              })
          .toList();
    }
  }

  private byte[] runFile(Path out) throws IOException {
    return CliRunner.trecRun(
        out, "dense:tiny-dense", "t", tmp.resolve(out.getFileName() + ".trec"));
  }

  @Test
  void eachShardEncodesItsSlicesAndTheWorkItemReadsThemBackWithTheRankingsOfOneProcess()
      throws Exception {
    Path sharded = tmp.resolve("sharded");
    // The job's one work item is shard 0's (the least loaded, lowest index); shards 1 and 2 run
    // none of its cells but encode their slices of its corpus: slice 1, then slice 2.
    CliRunner one = run(sharded, "cache", "--shard", "1/3");
    assertThat(one.err())
        .contains(
            "dense:tiny-dense on big/t: encoded 1 of this shard's 1 slices of 4 for its work item"
                + " (0 recorded before)");
    assertThat(recordedSlices("cache")).hasSize(1);
    CliRunner oneAgain = run(sharded, "cache", "--shard", "1/3");
    assertThat(oneAgain.err())
        .contains("encoded 0 of this shard's 1 slices of 4 for its work item (1 recorded before)");
    assertThat(recordedSlices("cache")).hasSize(1);
    run(sharded, "cache", "--shard", "2/3");
    assertThat(recordedSlices("cache")).hasSize(2);
    assertThat(sharded.resolve("cells"))
        .satisfiesAnyOf(
            cells -> assertThat(cells).doesNotExist(),
            cells -> assertThat(cells).isEmptyDirectory());

    // Shard 0 encodes slices 0 and 3, then its work item finds all four recorded.
    CliRunner zero = run(sharded, "cache", "--shard", "0/3");
    assertThat(zero.err())
        .contains("encoded 2 of this shard's 2 slices of 4 for its work item (0 recorded before)")
        .contains(
            "encoding documents with tiny-dense: all 4 slices were encoded before, read back");
    assertThat(recordedSlices("cache")).hasSize(4);
    run(sharded, "cache", "--merge-only");

    Path whole = tmp.resolve("whole");
    CliRunner single = run(whole, "cache-whole");
    assertThat(single.err()).doesNotContain("this shard's");
    assertThat(runFile(sharded)).isEqualTo(runFile(whole));
  }

  @Test
  void threeShardProcessesAtOnceShareTheEncodeThroughOneCacheWithTheRankingsOfOneProcess()
      throws Exception {
    Path sharded = tmp.resolve("sharded");
    run(sharded, "cache", "--executor", "local", "--parallelism", "3");
    // Each shard process encoded its slices while shard 0's work item ran: every shard says what
    // it did (how many it found recorded depends on which process got to a slice first).
    for (int shard = 0; shard < 3; shard++) {
      String events =
          Files.readString(
              sharded.resolve("shards").resolve("shard-" + shard + "-of-3.events.jsonl"));
      assertThat(events)
          .as("shard %d's events", shard)
          .contains("\"encode_share\"")
          .contains("this shard's " + (shard == 0 ? 2 : 1) + " slices of 4");
    }
    // Four slices, each recorded (a slice two processes encoded at once is recorded twice).
    assertThat(recordedSlices("cache").stream().map(line -> line.split("\t")[0]).distinct())
        .hasSize(4);

    Path whole = tmp.resolve("whole");
    run(whole, "cache-whole");
    assertThat(runFile(sharded)).isEqualTo(runFile(whole));
  }

  @Test
  void aLightRetrieverWorkItemAloneHasItsDocumentSlicesSpreadOverTheShardsToo() throws Exception {
    // LightRetriever ranks with the model's document vectors (its hybrid through the base): a job
    // of light:MODEL alone spreads their slices as a dense work item's.
    Files.writeString(
        spec, "task_sets: [tasks.yaml]\nretrievers:\n  - {retriever: light:tiny-dense}\n");
    Path sharded = tmp.resolve("sharded");
    CliRunner one = run(sharded, "cache", "--shard", "1/3");
    assertThat(one.err())
        .contains(
            "light:tiny-dense on big/t: encoded 1 of this shard's 1 slices of 4 for its work item"
                + " (0 recorded before)");
    run(sharded, "cache", "--shard", "2/3");
    assertThat(recordedSlices("cache")).hasSize(2);
    CliRunner zero = run(sharded, "cache", "--shard", "0/3");
    assertThat(zero.err())
        .contains("encoded 2 of this shard's 2 slices of 4 for its work item (0 recorded before)")
        .contains(
            "encoding documents with tiny-dense: all 4 slices were encoded before, read back");
    run(sharded, "cache", "--merge-only");

    Path whole = tmp.resolve("whole");
    run(whole, "cache-whole");
    for (String system : List.of("light:tiny-dense", "light-hybrid:tiny-dense")) {
      assertThat(
              CliRunner.trecRun(
                  sharded,
                  system,
                  "t",
                  tmp.resolve("sharded-" + system.replace(':', '-') + ".trec")))
          .as(system)
          .isEqualTo(
              CliRunner.trecRun(
                  whole, system, "t", tmp.resolve("whole-" + system.replace(':', '-') + ".trec")));
    }
  }

  @Test
  void aCorpusOfFewerSlicesThanShardsIsLeftToItsWorkItem() throws Exception {
    CliRunner run = run(tmp.resolve("out"), "cache", "--shard", "1/5");
    assertThat(run.err()).doesNotContain("this shard's");
    assertThat(recordedSlices("cache")).isEmpty();
  }
}
