package dev.tenbin.eval.grpc;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.tenbin.eval.job.JobManager;
import dev.tenbin.eval.job.JobOutcome;
import dev.tenbin.eval.job.JobRequest;
import dev.tenbin.eval.job.ServiceFolders;
import dev.tenbin.eval.store.ResultStore;
import dev.tenbin.eval.testing.EvaluatedCells;
import dev.tenbin.proto.eval.v1.EvalServiceGrpc;
import dev.tenbin.proto.eval.v1.GetResultsRequest;
import dev.tenbin.proto.eval.v1.ListJobsRequest;
import dev.tenbin.rpc.GrpcServerHost;
import dev.tenbin.scoring.beir.SyntheticBeir;
import dev.tenbin.testing.data.Scratch;
import dev.tenbin.testing.fuzz.ProtoFuzz;
import dev.tenbin.testing.fuzz.RpcFuzzer;
import io.grpc.ManagedChannel;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * Fuzzes every RPC of the eval service in-process, over a {@link JobManager} whose executor runs
 * nothing (it reports an empty plan and succeeds), with jobs that exist: one with a stored cell,
 * one with a corrupt cell file. Contract: no INTERNAL or UNKNOWN, no hang, every job's folder lies
 * under the service's results folder, and afterwards the service still lists jobs and returns the
 * stored cell. Paths in requests that would reach outside a sandbox folder are rewritten to fresh
 * folders inside it (still outside the results folder), so an escape is detected without touching
 * anything else.
 */
class EvalRpcFuzzTest {
  private static Path sandbox;
  private static Path results;
  private static JobManager jobs;
  private static GrpcServerHost host;
  private static ManagedChannel channel;
  private static RpcFuzzer fuzzer;
  private static String storedJob;

  @BeforeAll
  static void start() throws Exception {
    sandbox = Files.createTempDirectory("eval-fuzz");
    results = Files.createDirectories(sandbox.resolve("a/b/c/d/e/f/g/h/i/results"));
    Path data = Files.createDirectories(sandbox.resolve("data"));
    SyntheticBeir.write(data.resolve("tiny"), 20, 10, 4, 1);
    jobs =
        JobManager.open(
            new ServiceFolders(sandbox.resolve("state"), results, List.of(data)),
            (job, listener, cancellation) -> {
              listener.planned(0, 0);
              return new JobOutcome(0, 0, 0, List.of(), cancellation.isCancelled(), 0);
            });
    String spec = "task_sets: [sets/local.yaml]\nretrievers: [bm25]\n";
    List<JobRequest.TaskSetDocument> taskSets =
        List.of(
            new JobRequest.TaskSetDocument(
                "sets/local.yaml",
                "name: b\ntasks:\n  - {name: tiny, language: en, source: {path: "
                    + data.resolve("tiny")
                    + "}}\n",
                data.toString()));
    storedJob = jobs.submit(new JobRequest(spec, taskSets, "stored")).id();
    ResultStore.open(results.resolve("stored"))
        .append(
            EvaluatedCells.cell(
                EvaluatedCells.key("NanoSciFact", "bm25", "bm25", "base"),
                EvaluatedCells.QRELS,
                EvaluatedCells.run(0)));
    String corruptJob = jobs.submit(new JobRequest(spec, taskSets, "corrupt")).id();
    Files.write(
        Files.createDirectories(results.resolve("corrupt/cells"))
            .resolve("00000000000000000000.json.gz"),
        new byte[] {31, -117, 8, 0});
    String name = "eval-fuzz-" + UUID.randomUUID();
    host =
        GrpcServerHost.startInProcess(
            name, new SimpleMeterRegistry(), List.of(new EvalGrpcService(jobs)));
    channel = InProcessChannelBuilder.forName(name).directExecutor().build();
    ProtoFuzz generator =
        new ProtoFuzz(
            Map.of(
                "job_id",
                List.of(storedJob, corruptJob, "job-000000000000", ""),
                "spec_yaml",
                List.of(
                    spec,
                    "task_sets: [x.yaml]\nretrievers: [bm25, {retriever: dense:m, variants: [int8]}]\ntop_k: 10\n",
                    "task_sets: [x.yaml]\nrerankers: [dense:m]\ncandidates: {dense_model: m}\n",
                    "{}",
                    "- a\n- b\n"),
                "output_dir",
                List.of(
                    "out",
                    "stored",
                    "corrupt",
                    "out/nested",
                    "../results/out",
                    "../escape",
                    "/etc/tenbin")));
    fuzzer =
        new RpcFuzzer(
            channel,
            EvalServiceGrpc.getServiceDescriptor(),
            generator,
            EvalRpcFuzzTest::confine,
            Duration.ofSeconds(30));
  }

  @AfterAll
  static void stop() throws Exception {
    channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    host.close();
    jobs.close();
    Scratch.delete(sandbox);
  }

  @FuzzTest
  void everyRpcAnswersHostileRequestsWithAClientStatus(FuzzedDataProvider data) {
    fuzzer.call(data);
    for (JobManager.Snapshot job : jobs.list()) {
      assertThat(job.outputDirectory().normalize().startsWith(results))
          .as(
              "the folder %s of job %s lies under the results folder",
              job.outputDirectory(), job.id())
          .isTrue();
    }
    var eval = EvalServiceGrpc.newBlockingStub(channel).withDeadlineAfter(30, TimeUnit.SECONDS);
    assertThat(eval.listJobs(ListJobsRequest.getDefaultInstance()).getJobsList())
        .anySatisfy(job -> assertThat(job.getId()).isEqualTo(storedJob));
    List<String> cells = new ArrayList<>();
    eval.getResults(GetResultsRequest.newBuilder().setJobId(storedJob).build())
        .forEachRemaining(r -> cells.add(r.getCell().getFingerprint()));
    assertThat(cells).hasSize(1);
  }

  /**
   * A one-line string that would resolve outside the sandbox becomes an absolute path to a fresh
   * folder in the sandbox (still outside the results folder, so an escape is still detected).
   */
  private static String confine(String text) {
    if (text.indexOf('\n') >= 0) {
      return text;
    }
    try {
      if (results.resolve(text).normalize().startsWith(sandbox)) {
        return text;
      }
    } catch (InvalidPathException notAPath) {
      return text;
    }
    return sandbox.resolve("outside-" + Integer.toHexString(text.hashCode())).toString();
  }
}
