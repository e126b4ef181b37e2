package dev.tenbin.eval.grpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tenbin.eval.job.JobListener;
import dev.tenbin.eval.job.JobManager;
import dev.tenbin.eval.job.JobOutcome;
import dev.tenbin.eval.job.ServiceFolders;
import dev.tenbin.eval.store.CellKey;
import dev.tenbin.eval.store.CellRecord;
import dev.tenbin.eval.store.ResultStore;
import dev.tenbin.eval.store.StoredDoc;
import dev.tenbin.eval.store.StoredQuery;
import dev.tenbin.eval.testing.CellKeys;
import dev.tenbin.proto.eval.v1.CancelJobRequest;
import dev.tenbin.proto.eval.v1.EvalServiceGrpc;
import dev.tenbin.proto.eval.v1.GetJobRequest;
import dev.tenbin.proto.eval.v1.GetResultsRequest;
import dev.tenbin.proto.eval.v1.GetResultsResponse;
import dev.tenbin.proto.eval.v1.Job;
import dev.tenbin.proto.eval.v1.JobState;
import dev.tenbin.proto.eval.v1.ListJobsRequest;
import dev.tenbin.proto.eval.v1.SubmitJobRequest;
import dev.tenbin.proto.eval.v1.TaskSetDocument;
import dev.tenbin.proto.eval.v1.WatchJobRequest;
import dev.tenbin.proto.eval.v1.WatchJobResponse;
import dev.tenbin.rpc.GrpcServerHost;
import dev.tenbin.rpc.StatusMapper;
import dev.tenbin.scoring.metrics.TieAwareValue;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The eval service over gRPC: jobs are submitted, watched until they end, cancelled, listed, and
 * their stored cells streamed back. The job executor here stores cells itself, so the contract is
 * tested without encoders; {@code RunCommandTest} runs real jobs.
 */
class EvalGrpcServiceTest {
  private static final String SPEC = "name: t\ntask_sets: [tasks.yaml]\nretrievers: [bm25]\n";
  static final String HUB_TASKS =
      "name: b\ntasks:\n  - {name: t, language: en, source: {hub: owner/data, revision: main}}\n";

  @TempDir Path tmp;
  private final CountDownLatch release = new CountDownLatch(1);
  private final CountDownLatch started = new CountDownLatch(1);
  private JobManager jobs;
  private GrpcServerHost host;
  private ManagedChannel channel;
  private EvalServiceGrpc.EvalServiceBlockingStub stub;

  /** Plans two cells, stores one, waits to be released (or cancelled), stores the other. */
  private JobOutcome fakeJob(
      Path directory, JobListener listener, dev.tenbin.core.Cancellation cancellation) {
    ResultStore store = ResultStore.open(directory);
    listener.planned(2, 0);
    started.countDown();
    store.append(cell("a".repeat(64)));
    listener.cellStored(cell("a".repeat(64)));
    try {
      while (!release.await(10, TimeUnit.MILLISECONDS)) {
        if (cancellation.isCancelled()) {
          return new JobOutcome(2, 0, 1, List.of(), true, 1);
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    store.append(cell("b".repeat(64)));
    listener.cellStored(cell("b".repeat(64)));
    return new JobOutcome(2, 0, 2, List.of(), false, 1);
  }

  private static CellRecord cell(String fingerprint) {
    CellKey key =
        CellKeys.key()
            .dataset("tiny")
            .task("tiny-" + fingerprint.charAt(0))
            .system("bm25", "bm25")
            .build();
    return new CellRecord(
        CellRecord.FORMAT_VERSION,
        fingerprint,
        key,
        Map.of(),
        Map.of(),
        Map.of("ndcg@10", 0.5),
        Map.of("ndcg@10", new TieAwareValue(0.5, 0.5, 0.5, 0, 0)),
        Map.of(),
        Map.of(),
        List.of(
            new StoredQuery(
                "q1",
                Map.of("ndcg@10", 0.5),
                List.of(new StoredDoc("d1", 1.5, 1), new StoredDoc("d2", 1.5, 2)))),
        "2026-11-23T00:00:00Z");
  }

  @BeforeEach
  void start() {
    jobs =
        JobManager.open(
            new ServiceFolders(tmp.resolve("state"), tmp.resolve("results"), List.of()),
            (job, listener, cancellation) -> fakeJob(job.directory(), listener, cancellation));
    String name = "eval-" + UUID.randomUUID();
    host =
        GrpcServerHost.startInProcess(
            name, new SimpleMeterRegistry(), List.of(new EvalGrpcService(jobs)));
    channel = InProcessChannelBuilder.forName(name).build();
    stub = EvalServiceGrpc.newBlockingStub(channel);
  }

  @AfterEach
  void stop() throws Exception {
    release.countDown();
    channel.shutdownNow();
    host.close();
    jobs.close();
  }

  private Job submit(String out) {
    return stub.submitJob(request(SPEC, out)).getJob();
  }

  static SubmitJobRequest request(String spec, String out) {
    return SubmitJobRequest.newBuilder()
        .setSpecYaml(spec)
        .setOutputDir(out)
        .addTaskSets(TaskSetDocument.newBuilder().setName("tasks.yaml").setYaml(HUB_TASKS))
        .build();
  }

  private Path results() throws java.io.IOException {
    return tmp.resolve("results").toRealPath();
  }

  @Test
  void aSubmittedJobIsWatchedUntilItSucceedsAndItsCellsStreamBackWithScoredRankings()
      throws Exception {
    Job job = submit("out");
    assertThat(job.getId()).startsWith("job-");
    assertThat(job.getOutputDir()).isEqualTo(results().resolve("out").toString());
    assertThat(job.getName()).isEqualTo("t");
    assertThat(job.hasSubmitTime()).isTrue();
    started.await(10, TimeUnit.SECONDS);
    Iterator<WatchJobResponse> updates =
        stub.watchJob(WatchJobRequest.newBuilder().setJobId(job.getId()).build());
    List<Job> seen = new ArrayList<>();
    seen.add(updates.next().getJob());
    release.countDown();
    updates.forEachRemaining(update -> seen.add(update.getJob()));
    assertThat(seen.getFirst().getState()).isEqualTo(JobState.JOB_STATE_RUNNING);
    assertThat(seen.getLast().getState()).isEqualTo(JobState.JOB_STATE_SUCCEEDED);
    assertThat(seen.getLast().getCellsDone()).isEqualTo(2);
    assertThat(seen.getLast().getCellsTotal()).isEqualTo(2);
    assertThat(seen.getLast().hasEndTime()).isTrue();

    List<GetResultsResponse> results = new ArrayList<>();
    stub.getResults(GetResultsRequest.newBuilder().setJobId(job.getId()).build())
        .forEachRemaining(results::add);
    assertThat(results).hasSize(2);
    var ranking = results.getFirst().getCell().getRankings(0);
    assertThat(ranking.getQueryId()).isEqualTo("q1");
    assertThat(ranking.getDocumentsList())
        .extracting(d -> d.getDocId() + "@" + d.getRank() + "=" + d.getScore())
        .containsExactly("d1@1=1.5", "d2@2=1.5");
    assertThat(results.getFirst().getCell().getMetricsList())
        .anyMatch(m -> m.getName().equals("ndcg@10") && m.getValue() == 0.5);
    assertThat(stub.listJobs(ListJobsRequest.getDefaultInstance()).getJobsList()).hasSize(1);
  }

  @Test
  void aFinishedJobsFolderIsDownloadedResumedAndSkippedWhenUnchanged() throws Exception {
    Job job = submit("out");
    release.countDown();
    Iterator<WatchJobResponse> updates =
        stub.watchJob(WatchJobRequest.newBuilder().setJobId(job.getId()).build());
    updates.forEachRemaining(update -> {});
    Path folder = results().resolve("out");
    // A file larger than one chunk, so the stream carries several.
    byte[] big = new byte[EvalGrpcService.FILE_CHUNK_BYTES * 2 + 123];
    new java.util.Random(7).nextBytes(big);
    Files.write(folder.resolve("warehouse.duckdb"), big);

    var client = dev.tenbin.client.eval.EvalClient.of(channel);
    List<dev.tenbin.proto.eval.v1.JobFile> listed = client.listJobFiles(job.getId());
    assertThat(listed)
        .extracting(dev.tenbin.proto.eval.v1.JobFile::getPath)
        .contains("warehouse.duckdb")
        .anyMatch(p -> p.startsWith("cells/"))
        .noneMatch(p -> p.startsWith(".lock"));

    Path into = tmp.resolve("copy");
    // A broken earlier download left the first 1000 bytes: the copy resumes from there.
    Files.createDirectories(into);
    Files.write(into.resolve("warehouse.duckdb.partial"), java.util.Arrays.copyOf(big, 1000));
    var download = new dev.tenbin.client.eval.JobDownload(client);
    var first = download.into(job.getId(), into);
    assertThat(first.downloaded()).isEqualTo(listed.size());
    assertThat(Files.readAllBytes(into.resolve("warehouse.duckdb"))).isEqualTo(big);
    assertThat(Files.exists(into.resolve("warehouse.duckdb.partial"))).isFalse();
    long others =
        listed.stream()
            .filter(f -> !f.getPath().equals("warehouse.duckdb"))
            .mapToLong(dev.tenbin.proto.eval.v1.JobFile::getSizeBytes)
            .sum();
    assertThat(first.bytes()).isEqualTo(others + big.length - 1000);
    for (var file : listed) {
      assertThat(Files.readAllBytes(into.resolve(file.getPath())))
          .as(file.getPath())
          .isEqualTo(Files.readAllBytes(folder.resolve(file.getPath())));
    }

    var again = download.into(job.getId(), into);
    assertThat(again.downloaded()).isZero();
    assertThat(again.unchanged()).isEqualTo(listed.size());

    assertThatThrownBy(
            () ->
                stub.readJobFile(
                        dev.tenbin.proto.eval.v1.ReadJobFileRequest.newBuilder()
                            .setJobId(job.getId())
                            .setPath("../../state/jobs.json")
                            .build())
                    .hasNext())
        .isInstanceOfSatisfying(
            StatusRuntimeException.class,
            e -> {
              assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.PERMISSION_DENIED);
              assertThat(e.getStatus().getDescription()).contains("path");
            });
  }

  @Test
  void aRunningJobIsCancelledAndKeepsTheCellsItStored() throws Exception {
    Job job = submit("out");
    assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();
    stub.cancelJob(CancelJobRequest.newBuilder().setJobId(job.getId()).build());
    Iterator<WatchJobResponse> updates =
        stub.watchJob(WatchJobRequest.newBuilder().setJobId(job.getId()).build());
    Job last = null;
    while (updates.hasNext()) {
      last = updates.next().getJob();
    }
    assertThat(last.getState()).isEqualTo(JobState.JOB_STATE_CANCELLED);
    assertThat(ResultStore.existing(results().resolve("out"), "out").readAll()).hasSize(1);
  }

  @Test
  void aQueuedJobCancelledBeforeItStartsNeverRuns() throws Exception {
    Job first = submit("first");
    started.await(10, TimeUnit.SECONDS);
    Job second = submit("second");
    assertThat(second.getState()).isEqualTo(JobState.JOB_STATE_QUEUED);
    Job cancelled =
        stub.cancelJob(CancelJobRequest.newBuilder().setJobId(second.getId()).build()).getJob();
    assertThat(cancelled.getState()).isEqualTo(JobState.JOB_STATE_CANCELLED);
    release.countDown();
    Iterator<WatchJobResponse> updates =
        stub.watchJob(WatchJobRequest.newBuilder().setJobId(first.getId()).build());
    updates.forEachRemaining(update -> {});
    assertThat(
            stub.getJob(GetJobRequest.newBuilder().setJobId(second.getId()).build())
                .getJob()
                .getState())
        .isEqualTo(JobState.JOB_STATE_CANCELLED);
    assertThat(results().resolve("second")).doesNotExist();
  }

  @Test
  void badRequestsAreRefusedWithTheFieldNamed() {
    assertThatThrownBy(
            () ->
                stub.submitJob(
                    SubmitJobRequest.newBuilder()
                        .setSpecYaml("name: [unclosed")
                        .setOutputDir("o")
                        .build()))
        .isInstanceOfSatisfying(
            StatusRuntimeException.class,
            e -> {
              assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
              assertThat(e.getStatus().getDescription())
                  .contains("not valid YAML")
                  .contains("line 1, column")
                  .doesNotContain("unclosed");
              assertThat(StatusMapper.violatedField(e)).isEqualTo("spec_yaml");
            });
    assertThatThrownBy(() -> stub.submitJob(request(SPEC, "").toBuilder().clearOutputDir().build()))
        .isInstanceOfSatisfying(
            StatusRuntimeException.class,
            e -> {
              assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
              assertThat(e.getStatus().getDescription()).contains("output_dir");
            });
    assertThatThrownBy(() -> stub.getJob(GetJobRequest.newBuilder().setJobId("job-nope").build()))
        .isInstanceOfSatisfying(
            StatusRuntimeException.class,
            e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.NOT_FOUND));
  }

  @Test
  void twoLiveJobsCannotWriteOneFolder() throws Exception {
    submit("same");
    started.await(10, TimeUnit.SECONDS);
    assertThatThrownBy(() -> submit("same"))
        .isInstanceOfSatisfying(
            StatusRuntimeException.class,
            e -> {
              assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.FAILED_PRECONDITION);
              assertThat(e.getStatus().getDescription()).contains("already writing");
            });
  }

  @Test
  void outputFoldersOutsideTheResultsRootArePermissionDeniedNamingTheField() {
    for (String out : List.of("/etc/x", "../../../tmp/x", tmp.resolve("elsewhere").toString())) {
      assertThatThrownBy(() -> submit(out))
          .as(out)
          .isInstanceOfSatisfying(
              StatusRuntimeException.class,
              e -> {
                assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.PERMISSION_DENIED);
                assertThat(StatusMapper.violatedField(e)).isEqualTo("output_dir");
                assertThat(e.getStatus().getDescription())
                    .startsWith("output_dir: ")
                    .contains("outside the results root");
              });
    }
    assertThat(Path.of("/etc/x")).doesNotExist();
    assertThat(stub.listJobs(ListJobsRequest.getDefaultInstance()).getJobsList()).isEmpty();
  }

  @Test
  void aTaskSetTheClientDidNotSendIsNeverReadFromTheServicesDisk() {
    SubmitJobRequest request =
        SubmitJobRequest.newBuilder()
            .setSpecYaml("task_sets: [/etc/passwd]\nretrievers: [bm25]\n")
            .setOutputDir("o")
            .build();
    assertThatThrownBy(() -> stub.submitJob(request))
        .isInstanceOfSatisfying(
            StatusRuntimeException.class,
            e -> {
              assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
              assertThat(StatusMapper.violatedField(e)).isEqualTo("spec_yaml.task_sets[0]");
              assertThat(e.getStatus().getDescription())
                  .contains("was not sent with the job")
                  .doesNotContain("root:");
            });
  }
}
