package dev.tenbin.eval.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenbin.eval.grpc.EvalGrpcService;
import dev.tenbin.eval.job.AdmittedJob;
import dev.tenbin.eval.job.JobManager;
import dev.tenbin.eval.job.JobOutcome;
import dev.tenbin.eval.job.ServiceFolders;
import dev.tenbin.eval.store.CellKey;
import dev.tenbin.eval.store.CellRecord;
import dev.tenbin.eval.store.ResultStore;
import dev.tenbin.eval.store.StoredDoc;
import dev.tenbin.eval.store.StoredQuery;
import dev.tenbin.eval.taskset.DatasetSource.LocalBeir;
import dev.tenbin.eval.testing.CellKeys;
import dev.tenbin.rpc.GrpcServerHost;
import dev.tenbin.rpc.ServerSettings;
import dev.tenbin.scoring.metrics.TieAwareValue;
import dev.tenbin.testing.data.TinyBeir;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code tenbin job submit | status | watch | cancel | results | list} against an eval service on
 * loopback whose data root is {@code shared/datasets} and whose job executor stores one cell (or
 * fails, for a job named {@code fails}).
 */
class JobCommandsTest {
  private static final Path EXAMPLES = Path.of("..", "examples").toAbsolutePath().normalize();

  @TempDir Path tmp;
  private final AtomicReference<AdmittedJob> lastRun = new AtomicReference<>();
  private ServiceFolders folders;
  private JobManager jobs;
  private GrpcServerHost host;
  private String endpoint;

  @BeforeEach
  void start() throws Exception {
    Files.createDirectories(tmp.resolve("shared/datasets"));
    folders =
        new ServiceFolders(
            tmp.resolve("state"), tmp.resolve("results"), List.of(tmp.resolve("shared/datasets")));
    startService();
  }

  private void startService() {
    jobs =
        JobManager.open(
            folders,
            (job, listener, cancellation) -> {
              lastRun.set(job);
              if (job.spec().name().equals("fails")) {
                return new JobOutcome(1, 0, 0, List.of("bm25 on t: the index is gone"), false, 1);
              }
              listener.planned(1, 0);
              CellKey key = CellKeys.key().benchmark("b").task("t").system("bm25", "bm25").build();
              CellRecord cell =
                  new CellRecord(
                      CellRecord.FORMAT_VERSION,
                      "c".repeat(64),
                      key,
                      Map.of(),
                      Map.of(),
                      Map.of("ndcg@10", 0.75, "recall@100", 1.0),
                      Map.of("ndcg@10", new TieAwareValue(0.75, 0.75, 0.75, 0, 0)),
                      Map.of(),
                      Map.of(),
                      List.of(
                          new StoredQuery("q1", Map.of(), List.of(new StoredDoc("d1", 2.0, 1)))),
                      "2026-11-23T00:00:00Z");
              ResultStore.open(job.directory()).append(cell);
              listener.cellStored(cell);
              return new JobOutcome(1, 0, 1, List.of(), false, 1);
            });
    host =
        GrpcServerHost.start(
            new ServerSettings("127.0.0.1", 0, -1, 64 << 20, Duration.ofSeconds(1)),
            List.of(new EvalGrpcService(jobs)));
    endpoint = "127.0.0.1:" + host.port();
  }

  private void stopService() {
    host.close();
    jobs.close();
  }

  @AfterEach
  void stop() {
    stopService();
  }

  /**
   * A spec in {@code client/jobs} whose task set in {@code client/sets} names a tiny BEIR folder
   * under the data root.
   */
  private Path clientSpec(String name) throws Exception {
    TinyBeir.write(tmp.resolve("shared/datasets/tiny"));
    Files.createDirectories(tmp.resolve("client/sets"));
    Files.createDirectories(tmp.resolve("client/jobs"));
    Files.writeString(
        tmp.resolve("client/sets/tasks.yaml"),
        "name: b\ntasks:\n  - {name: tiny, language: en, source: {path: ../../shared/datasets/tiny}}\n");
    Path spec = tmp.resolve("client/jobs/" + name + ".yaml");
    Files.writeString(
        spec, "name: " + name + "\ntask_sets: [../sets/tasks.yaml]\nretrievers: [bm25]\n");
    return spec;
  }

  @Test
  void aSubmittedJobIsFollowedToTheEndAndItsResultsPrinted() throws Exception {
    Path spec = clientSpec("job");
    CliRunner submit =
        CliRunner.run(
            "job", "submit", spec.toString(), "--out", "out", "--watch", "--endpoint", endpoint);
    assertThat(submit.exitCode()).as(submit.err()).isZero();
    String id = submit.out().strip();
    assertThat(id).matches("job-[0-9a-f]{12}");
    assertThat(submit.err()).contains(id + " succeeded: 1/1 cells");

    CliRunner status = CliRunner.run("job", "status", id, "--endpoint", endpoint);
    assertThat(status.out()).contains("succeeded");

    CliRunner table = CliRunner.run("job", "results", id, "--endpoint", endpoint);
    assertThat(table.out()).contains("bm25").contains("0.7500").contains("1.0000");
    CliRunner json =
        CliRunner.run("job", "results", id, "--json", "--rankings", "--endpoint", endpoint);
    var cell = ResultStore.JSON.readTree(json.out().lines().findFirst().orElseThrow());
    assertThat(cell.get("metrics").get("ndcg@10").asDouble()).isEqualTo(0.75);
    assertThat(cell.get("rankings").get(0).get("documents").get(0).get("score").asDouble())
        .isEqualTo(2.0);
  }

  @Test
  void
      submitResolvesTheTaskSetsOnTheClientRelativeToTheSpecAndTheServiceReadsTheDatasetUnderItsDataRoot()
          throws Exception {
    Path spec = clientSpec("job");
    CliRunner submit =
        CliRunner.run(
            "job", "submit", spec.toString(), "--out", "runs/x", "--watch", "--endpoint", endpoint);
    assertThat(submit.exitCode()).as(submit.err()).isZero();
    AdmittedJob ran = lastRun.get();
    assertThat(ran.directory()).isEqualTo(tmp.resolve("results").toRealPath().resolve("runs/x"));
    assertThat(ran.taskSets().getFirst().tasks().getFirst().source())
        .isEqualTo(new LocalBeir(tmp.resolve("shared/datasets/tiny").toRealPath()));
  }

  @Test
  void theExampleSmallDenseJobIsAcceptedWhenItsDatasetsLieUnderADataRoot() throws Exception {
    // The repository's own example files, in the same layout: examples/jobs/small-dense.yaml names
    // ../local-beir.yaml, whose paths are ../data/<task> (the checkout's data/ folder, here a link
    // to
    // the data root). Only the two tasks the job selects need their data.
    Path repo = tmp.resolve("repo");
    Files.createDirectories(repo.resolve("examples/jobs"));
    Files.copy(
        EXAMPLES.resolve("jobs/small-dense.yaml"), repo.resolve("examples/jobs/small-dense.yaml"));
    Files.copy(EXAMPLES.resolve("local-beir.yaml"), repo.resolve("examples/local-beir.yaml"));
    Path datasets = tmp.resolve("shared/datasets");
    TinyBeir.write(datasets.resolve("xquad-en"));
    TinyBeir.write(datasets.resolve("arcd-ar"));
    Files.createSymbolicLink(repo.resolve("data"), datasets);
    CliRunner submit =
        CliRunner.run(
            "job",
            "submit",
            repo.resolve("examples/jobs/small-dense.yaml").toString(),
            "--out",
            "runs/x",
            "--watch",
            "--endpoint",
            endpoint);
    assertThat(submit.exitCode()).as(submit.err()).isZero();
    assertThat(lastRun.get().spec().taskFilter()).containsExactly("xquad-en", "arcd-ar");
    assertThat(lastRun.get().taskSets().getFirst().task("xquad-en").orElseThrow().source())
        .isEqualTo(new LocalBeir(datasets.resolve("xquad-en").toRealPath()));
  }

  @Test
  void aBadJobFailsAtSubmitWithTheFieldNamedAndANonZeroExit() throws Exception {
    Path spec = clientSpec("job");
    CliRunner outside =
        CliRunner.run("job", "submit", spec.toString(), "--out", "/etc/x", "--endpoint", endpoint);
    assertThat(outside.exitCode()).isNotZero();
    assertThat(outside.out()).isEmpty();
    assertThat(outside.err())
        .contains("PERMISSION_DENIED")
        .contains("output_dir")
        .doesNotContain("Exception");

    Files.writeString(
        tmp.resolve("client/sets/tasks.yaml"),
        "name: b\ntasks:\n  - {name: tiny, language: en, source: {path: /etc}}\n");
    CliRunner dataset =
        CliRunner.run("job", "submit", spec.toString(), "--out", "o", "--endpoint", endpoint);
    assertThat(dataset.exitCode()).isNotZero();
    assertThat(dataset.err())
        .contains("PERMISSION_DENIED")
        .contains("tasks[0].source.path")
        .contains("outside the data roots");

    Files.delete(tmp.resolve("client/sets/tasks.yaml"));
    CliRunner missing =
        CliRunner.run("job", "submit", spec.toString(), "--out", "o", "--endpoint", endpoint);
    assertThat(missing.exitCode()).isEqualTo(2);
    assertThat(missing.err()).contains("names task set ../sets/tasks.yaml, not found");
    assertThat(lastRun.get()).isNull();
  }

  @Test
  void submitWithWatchExitsNonZeroWhenTheJobFails() throws Exception {
    Path spec = clientSpec("fails");
    CliRunner submit =
        CliRunner.run(
            "job", "submit", spec.toString(), "--out", "f", "--watch", "--endpoint", endpoint);
    assertThat(submit.exitCode()).isEqualTo(RunCommand.EXIT_INCOMPLETE);
    assertThat(submit.err()).contains("failed").contains("the index is gone");
  }

  @Test
  void jobListShowsEveryJobAgainAfterTheServiceRestarts() throws Exception {
    Path spec = clientSpec("job");
    String id =
        CliRunner.run(
                "job", "submit", spec.toString(), "--out", "out", "--watch", "--endpoint", endpoint)
            .out()
            .strip();
    CliRunner before = CliRunner.run("job", "list", "--endpoint", endpoint);
    assertThat(before.exitCode()).as(before.err()).isZero();
    assertThat(before.out()).contains(id).contains("succeeded").contains("1/1");

    stopService();
    startService();
    CliRunner after = CliRunner.run("job", "list", "--json", "--endpoint", endpoint);
    assertThat(after.exitCode()).as(after.err()).isZero();
    var listed = ResultStore.JSON.readTree(after.out().lines().findFirst().orElseThrow());
    assertThat(listed.get("id").asText()).isEqualTo(id);
    assertThat(listed.get("name").asText()).isEqualTo("job");
    assertThat(listed.get("state").asText()).isEqualTo("succeeded");
    assertThat(listed.get("cells_done").asInt()).isEqualTo(1);
    assertThat(listed.get("ended").asText()).isNotEmpty();
    assertThat(CliRunner.run("job", "results", id, "--endpoint", endpoint).out())
        .contains("0.7500");
  }

  @Test
  void unknownJobsAndUnreachableServicesAreClearErrors() {
    CliRunner cancel = CliRunner.run("job", "cancel", "job-000000000000", "--endpoint", endpoint);
    assertThat(cancel.exitCode()).isEqualTo(2);
    assertThat(cancel.err()).contains("NOT_FOUND").contains("no job 'job-000000000000'");
    CliRunner badSpec =
        CliRunner.run(
            "job",
            "submit",
            tmp.resolve("missing.yaml").toString(),
            "--out",
            "o",
            "--endpoint",
            endpoint);
    assertThat(badSpec.exitCode()).isEqualTo(2);
    assertThat(badSpec.err()).contains("missing.yaml");
    CliRunner refused = CliRunner.run("job", "status", "job-1", "--endpoint", "127.0.0.1:1");
    assertThat(refused.exitCode()).isEqualTo(1);
    assertThat(refused.err()).contains("UNAVAILABLE").doesNotContain("Exception");
  }
}
