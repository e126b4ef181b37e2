package dev.tenbin.eval.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tenbin.eval.shard.Shard;
import dev.tenbin.eval.shard.ShardOutcome;
import dev.tenbin.eval.store.ResultStore;
import dev.tenbin.testing.models.TinyModels;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code tenbin run --executor local}: three real child JVMs ({@code tenbin run SPEC --shard i/3}
 * on this test's class path) run a job of two dense models, BM25, LightRetriever and a reranker
 * into one folder; the merge computes nothing and writes the leaderboards. A shard process killed
 * with SIGKILL leaves only whole cells, and the rerun computes exactly the cells it did not store.
 */
class ShardedRunTest {
  @TempDir Path tmp;
  private Path spec;
  private Path models;

  @BeforeEach
  void writeJob() throws Exception {
    TinyJob.write(tmp);
    models = TinyJob.models(tmp);
    TinyModels.dense(models, "tiny-dense-fp16", true);
    spec = tmp.resolve("job.yaml");
    Files.writeString(
        spec,
        """
        name: sharded-job
        task_sets: [tasks.yaml]
        retrievers:
          - bm25
          - {retriever: dense:tiny-dense, variants: [base, int8]}
          - {retriever: dense:tiny-dense-fp16, variants: [base, int8]}
          - light:tiny-dense
        rerankers: [dense:tiny-dense]
        candidates: {dense_model: tiny-dense}
        """);
  }

  private CliRunner run(Path out, String cache, String... more) {
    return TinyJob.run(tmp, spec, out, tmp.resolve(cache), more);
  }

  @Test
  void threeShardProcessesStoreExactlyTheCellsOfOneProcessWithIdenticalRankings() throws Exception {
    Path single = tmp.resolve("single");
    Path sharded = tmp.resolve("sharded");
    CliRunner whole = run(single, "cache-single");
    assertThat(whole.exitCode()).as(whole.err()).isZero();

    CliRunner local = run(sharded, "cache-sharded", "--executor", "local", "--parallelism", "3");

    assertThat(local.exitCode()).as(local.err()).isZero();
    Set<String> cells = fingerprints(single);
    assertThat(cells).hasSize(10);
    assertThat(fingerprints(sharded)).isEqualTo(cells);
    for (String fingerprint : cells) {
      assertThat(trec(sharded, fingerprint))
          .as("TREC run of %s", fingerprint)
          .isEqualTo(trec(single, fingerprint));
      assertThat(ResultStore.existing(sharded, "--out").read(fingerprint).orElseThrow().queries())
          .isEqualTo(
              ResultStore.existing(single, "--out").read(fingerprint).orElseThrow().queries());
    }
    int computed = 0;
    for (int i = 0; i < 3; i++) {
      ShardOutcome outcome = ShardOutcome.read(sharded, new Shard(i, 3)).orElseThrow();
      assertThat(outcome.succeeded()).isTrue();
      assertThat(outcome.cellsTotal()).as("shard %d has work", i).isPositive();
      assertThat(outcome.cellsAlreadyStored()).isZero();
      computed += outcome.cellsComputed();
    }
    assertThat(computed).isEqualTo(10);
    assertThat(local.err())
        .contains("[shard 0/3] started, pid", "[shard 2/3] exited 0")
        .contains("tenbin: merge: all 10 cells stored, none computed");
    assertThat(sharded.resolve("leaderboard.md")).content().contains("dense:tiny-dense-fp16");
    assertThat(sharded.resolve("warehouse.duckdb")).isNotEmptyFile();
    assertThat(sharded.resolve("job.json")).isNotEmptyFile();
  }

  @Test
  void aShardKilledMidWayLeavesWholeCellsAndTheRerunComputesOnlyItsMissingCells() throws Exception {
    Path out = tmp.resolve("out");
    CliRunner first = run(out, "cache", "--executor", "local", "--parallelism", "3");
    assertThat(first.exitCode()).as(first.err()).isZero();
    Shard victim = new Shard(1, 3);
    Set<String> victimCells = storedBy(out, victim);
    assertThat(victimCells).isNotEmpty();
    // Shard 1 runs again from scratch (its cells gone) and is killed with SIGKILL once it has
    // started its work: what it had not renamed into place is lost.
    for (String fingerprint : victimCells) {
      Files.delete(ResultStore.existing(out, "--out").storedFile(fingerprint));
    }
    Files.delete(out.resolve("leaderboard.md"));
    Path events = out.resolve("shards").resolve(victim.fileStem() + ".events.jsonl");
    long startedBefore = count(events, "work_started");
    List<String> command = new ArrayList<>(KilledChildJvm.command(RunCommand.MAIN_CLASS, tmp));
    command.addAll(
        List.of(
            "run",
            spec.toString(),
            "--out",
            out.toString(),
            "--shard",
            victim.label(),
            "--models-dir",
            models.toString(),
            "--cache-dir",
            tmp.resolve("cache").toString(),
            "--progress",
            "none"));
    Process process =
        new ProcessBuilder(command)
            .redirectErrorStream(true)
            .redirectOutput(tmp.resolve("victim.log").toFile())
            .start();
    long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(3);
    while (count(events, "work_started") == startedBefore && process.isAlive()) {
      assertThat(System.nanoTime()).as("the shard started its work").isLessThan(deadline);
      Thread.sleep(20);
    }
    process.destroyForcibly(); // SIGKILL
    assertThat(process.waitFor(1, TimeUnit.MINUTES)).isTrue();
    assertThat(process.exitValue()).as(Files.readString(tmp.resolve("victim.log"))).isEqualTo(137);
    Set<String> survived = new TreeSet<>(victimCells);
    survived.retainAll(fingerprints(out));
    int missing = victimCells.size() - survived.size();

    CliRunner rerun = run(out, "cache", "--executor", "local", "--parallelism", "3");

    assertThat(rerun.exitCode()).as(rerun.err()).isZero();
    ShardOutcome redone = ShardOutcome.read(out, victim).orElseThrow();
    assertThat(redone.cellsComputed()).isEqualTo(missing);
    assertThat(redone.cellsAlreadyStored()).isEqualTo(survived.size());
    for (int i : new int[] {0, 2}) {
      ShardOutcome other = ShardOutcome.read(out, new Shard(i, 3)).orElseThrow();
      assertThat(other.cellsComputed()).as("shard %d computes nothing", i).isZero();
      assertThat(other.cellsAlreadyStored()).isEqualTo(other.cellsTotal());
    }
    assertThat(fingerprints(out)).hasSize(10).containsAll(victimCells);
    assertThat(rerun.err()).contains("tenbin: merge: all 10 cells stored, none computed");
    assertThat(out.resolve("leaderboard.md")).isNotEmptyFile();
    assertThat(missing).as("the kill came before shard 1 stored its cells").isPositive();
  }

  @Test
  void aShardWritesNoReportsAndTheMergeRefusesUntilEveryShardRan() throws Exception {
    Path out = tmp.resolve("out");
    CliRunner shard0 = run(out, "cache", "--shard", "0/2");
    assertThat(shard0.exitCode()).as(shard0.err()).isZero();
    assertThat(out.resolve("leaderboard.md")).doesNotExist();
    assertThat(out.resolve("warehouse.duckdb")).doesNotExist();

    CliRunner early = run(out, "cache", "--merge-only");
    assertThat(early.exitCode()).isEqualTo(RunCommand.EXIT_INCOMPLETE);
    assertThat(early.err()).contains("tenbin: merge: ").contains("missing:");
    assertThat(out.resolve("leaderboard.md")).doesNotExist();

    CliRunner shard1 = run(out, "cache", "--shard", "1/2");
    assertThat(shard1.exitCode()).as(shard1.err()).isZero();
    CliRunner merge = run(out, "cache", "--merge-only");
    assertThat(merge.exitCode()).as(merge.err()).isZero();
    assertThat(merge.err()).contains("tenbin: merge: all 10 cells stored, none computed");
    assertThat(out.resolve("leaderboard.md")).isNotEmptyFile();
    ShardOutcome first = ShardOutcome.read(out, new Shard(0, 2)).orElseThrow();
    ShardOutcome second = ShardOutcome.read(out, new Shard(1, 2)).orElseThrow();
    assertThat(first.cellsComputed() + second.cellsComputed()).isEqualTo(10);
    assertThat(first.cellsTotal()).isPositive();
    assertThat(second.cellsTotal()).isPositive();
  }

  /** The fingerprints of the stored cells. */
  private static Set<String> fingerprints(Path out) throws Exception {
    try (Stream<Path> files = Files.list(out.resolve("cells"))) {
      return files
          .map(p -> p.getFileName().toString())
          .filter(name -> name.endsWith(".cell.json") || name.endsWith(".json.gz"))
          .map(name -> name.substring(0, name.indexOf('.')))
          .collect(java.util.stream.Collectors.toCollection(TreeSet::new));
    }
  }

  /** Cells a shard stored, from its event log. */
  private static Set<String> storedBy(Path out, Shard shard) throws Exception {
    Set<String> stored = new TreeSet<>();
    Path events = out.resolve("shards").resolve(shard.fileStem() + ".events.jsonl");
    for (String line : Files.readAllLines(events, StandardCharsets.UTF_8)) {
      JsonNode event = ResultStore.JSON.readTree(line);
      if (event.get("event").asText().equals("cell_stored")) {
        stored.add(event.get("detail").asText().split(" ")[0]);
      }
    }
    return stored;
  }

  private static long count(Path events, String type) throws Exception {
    if (!Files.isRegularFile(events)) {
      return 0;
    }
    return Files.readAllLines(events, StandardCharsets.UTF_8).stream()
        .filter(line -> line.contains("\"event\":\"" + type + "\""))
        .count();
  }

  private byte[] trec(Path out, String fingerprint) throws Exception {
    Path file = tmp.resolve("trec-" + out.getFileName() + "-" + fingerprint + ".txt");
    CliRunner export =
        CliRunner.run(
            "export", "trec", out.toString(), "--cell", fingerprint, "--out", file.toString());
    assertThat(export.exitCode()).as(export.err()).isZero();
    return Files.readAllBytes(file);
  }
}
