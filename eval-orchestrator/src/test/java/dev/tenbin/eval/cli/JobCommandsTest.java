package dev.tenbin.eval.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenbin.eval.grpc.EvalGrpcService;
import dev.tenbin.eval.job.JobManager;
import dev.tenbin.eval.job.JobOutcome;
import dev.tenbin.eval.store.CellKey;
import dev.tenbin.eval.store.CellRecord;
import dev.tenbin.eval.store.ResultStore;
import dev.tenbin.eval.store.StoredDoc;
import dev.tenbin.eval.store.StoredQuery;
import dev.tenbin.eval.tieaware.TieAwareValue;
import dev.tenbin.rpc.GrpcServerHost;
import dev.tenbin.rpc.ServerSettings;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code tenbin submit | status | watch | cancel | results} against an eval service on loopback. */
class JobCommandsTest {
  @TempDir Path tmp;
  private JobManager jobs;
  private GrpcServerHost host;
  private String endpoint;

  @BeforeEach
  void start() {
    jobs =
        new JobManager(
            (spec, directory, listener, cancellation) -> {
              listener.planned(1, 0);
              CellKey key = new CellKey("b", "t", "t", "en", "", "bm25", "bm25", "base", "retrieval");
              CellRecord cell =
                  new CellRecord(
                      CellRecord.FORMAT_VERSION, "c".repeat(64), key, Map.of(), Map.of(), Map.of("ndcg@10", 0.75, "recall@100", 1.0),
                      Map.of("ndcg@10", new TieAwareValue(0.75, 0.75, 0.75, 0, 0)), Map.of(), Map.of(),
                      List.of(new StoredQuery("q1", Map.of(), List.of(new StoredDoc("d1", 2.0, 1)))), "2026-11-23T00:00:00Z");
              ResultStore.open(directory).append(cell);
              listener.cellStored(cell);
              return new JobOutcome(1, 0, 1, List.of(), false, 1);
            },
            tmp);
    host = GrpcServerHost.start(new ServerSettings("127.0.0.1", 0, -1, 64 << 20, Duration.ofSeconds(1)), List.of(new EvalGrpcService(jobs)));
    endpoint = "127.0.0.1:" + host.port();
  }

  @AfterEach
  void stop() {
    host.close();
    jobs.close();
  }

  @Test
  void aSubmittedJobIsFollowedToTheEndAndItsResultsPrinted() throws Exception {
    Path spec = tmp.resolve("job.yaml");
    Files.writeString(spec, "task_sets: [tasks.yaml]\nretrievers: [bm25]\n");
    CliRunner submit = CliRunner.run("submit", spec.toString(), "--out", "out", "--watch", "--endpoint", endpoint);
    assertThat(submit.exitCode()).as(submit.err()).isZero();
    String id = submit.out().strip();
    assertThat(id).matches("job-[0-9a-f]{12}");
    assertThat(submit.err()).contains(id + " succeeded: 1/1 cells");

    CliRunner status = CliRunner.run("status", id, "--endpoint", endpoint);
    assertThat(status.out()).contains("succeeded");

    CliRunner table = CliRunner.run("results", id, "--endpoint", endpoint);
    assertThat(table.out()).contains("bm25").contains("0.7500").contains("1.0000");
    CliRunner json = CliRunner.run("results", id, "--json", "--rankings", "--endpoint", endpoint);
    var cell = ResultStore.JSON.readTree(json.out().lines().findFirst().orElseThrow());
    assertThat(cell.get("metrics").get("ndcg@10").asDouble()).isEqualTo(0.75);
    assertThat(cell.get("rankings").get(0).get("documents").get(0).get("score").asDouble()).isEqualTo(2.0);
  }

  @Test
  void unknownJobsAndUnreachableServicesAreClearErrors() {
    CliRunner cancel = CliRunner.run("cancel", "job-000000000000", "--endpoint", endpoint);
    assertThat(cancel.exitCode()).isEqualTo(2);
    assertThat(cancel.err()).contains("NOT_FOUND").contains("no job job-000000000000");
    CliRunner badSpec = CliRunner.run("submit", tmp.resolve("missing.yaml").toString(), "--out", "o", "--endpoint", endpoint);
    assertThat(badSpec.exitCode()).isEqualTo(2);
    assertThat(badSpec.err()).contains("missing.yaml");
    CliRunner refused = CliRunner.run("status", "job-1", "--endpoint", "127.0.0.1:1");
    assertThat(refused.exitCode()).isEqualTo(1);
    assertThat(refused.err()).contains("UNAVAILABLE").doesNotContain("Exception");
  }
}
