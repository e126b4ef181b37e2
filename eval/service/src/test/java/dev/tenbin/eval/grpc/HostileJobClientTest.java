package dev.tenbin.eval.grpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tenbin.client.eval.EvalClient;
import dev.tenbin.client.eval.JobDownload;
import dev.tenbin.eval.job.JobManager;
import dev.tenbin.eval.job.JobOutcome;
import dev.tenbin.eval.job.ModelCatalog;
import dev.tenbin.eval.job.ServiceFolders;
import dev.tenbin.proto.eval.v1.EvalServiceGrpc;
import dev.tenbin.proto.eval.v1.GetJobRequest;
import dev.tenbin.proto.eval.v1.GetResultsRequest;
import dev.tenbin.proto.eval.v1.Job;
import dev.tenbin.proto.eval.v1.JobState;
import dev.tenbin.proto.eval.v1.ListJobFilesRequest;
import dev.tenbin.proto.eval.v1.ListJobsRequest;
import dev.tenbin.proto.eval.v1.ReadJobFileRequest;
import dev.tenbin.proto.eval.v1.SubmitJobRequest;
import dev.tenbin.proto.eval.v1.TaskSetDocument;
import dev.tenbin.proto.eval.v1.WatchJobRequest;
import dev.tenbin.rpc.GrpcServerHost;
import dev.tenbin.rpc.StatusMapper;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The eval service against a client that means harm, with the folders of the README's layout
 * ({@code serve eval --results-root runs --state-dir runs/eval-state}): output folders that reach
 * into the job table or into other jobs, job folders replaced by links, control characters in every
 * string of a job, leftovers of failed writes. Each is refused with a status naming the field, and
 * nothing of another job (or outside the results root) is written or served.
 */
class HostileJobClientTest {
  static final String SPEC = "name: t\ntask_sets: [tasks.yaml]\nretrievers: [bm25]\n";
  static final String OTHER_SPEC = "name: u\ntask_sets: [tasks.yaml]\nretrievers: [bm25]\n";
  static final String TASKS =
      "name: b\ntasks:\n  - {name: t, language: en, source: {hub: owner/data, revision: main}}\n";

  @TempDir Path tmp;
  private Path runs;
  private Path state;
  private JobManager jobs;
  private GrpcServerHost host;
  private ManagedChannel channel;
  private EvalServiceGrpc.EvalServiceBlockingStub stub;
  private ModelCatalog models = ModelCatalog.UNKNOWN;

  @BeforeEach
  void start() throws Exception {
    runs = Files.createDirectories(tmp.resolve("runs")).toRealPath();
    state = runs.resolve("eval-state");
    open();
  }

  private void open() {
    jobs =
        JobManager.open(
            new ServiceFolders(state, runs, List.of()),
            (job, listener, cancellation) -> {
              try {
                Files.createDirectories(job.directory());
                Files.writeString(job.directory().resolve("leaderboard.md"), "| rank |\n");
              } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
              }
              listener.planned(0, 0);
              return new JobOutcome(0, 0, 0, List.of(), false, 0);
            },
            models);
    String name = "hostile-" + UUID.randomUUID();
    host =
        GrpcServerHost.startInProcess(
            name, new SimpleMeterRegistry(), List.of(new EvalGrpcService(jobs)));
    channel = InProcessChannelBuilder.forName(name).build();
    stub = EvalServiceGrpc.newBlockingStub(channel);
  }

  @AfterEach
  void stop() {
    channel.shutdownNow();
    host.close();
    jobs.close();
  }

  static SubmitJobRequest request(String spec, String out) {
    return SubmitJobRequest.newBuilder()
        .setSpecYaml(spec)
        .setOutputDir(out)
        .addTaskSets(TaskSetDocument.newBuilder().setName("tasks.yaml").setYaml(TASKS))
        .build();
  }

  /** Submits a job and waits for its end. */
  private Job ran(String spec, String out) {
    Job job = stub.submitJob(request(spec, out)).getJob();
    stub.watchJob(WatchJobRequest.newBuilder().setJobId(job.getId()).build())
        .forEachRemaining(update -> {});
    return stub.getJob(GetJobRequest.newBuilder().setJobId(job.getId()).build()).getJob();
  }

  private void refused(SubmitJobRequest request, Status.Code code, String field, String says) {
    assertThatThrownBy(() -> stub.submitJob(request))
        .as("%s", request.getOutputDir())
        .isInstanceOfSatisfying(
            StatusRuntimeException.class,
            e -> {
              assertThat(e.getStatus().getCode()).isEqualTo(code);
              assertThat(StatusMapper.violatedField(e)).isEqualTo(field);
              assertThat(e.getStatus().getDescription()).contains(says);
            });
  }

  @Test
  void anOutputFolderInTheJobTableOrInAnotherJobIsRefusedNamingOutputDir() throws Exception {
    Job first = ran(SPEC, "dl1");
    assertThat(first.getState()).isEqualTo(JobState.JOB_STATE_SUCCEEDED);
    Path record = state.resolve("jobs").resolve(first.getId()).resolve("job.json");
    String recorded = Files.readString(record, StandardCharsets.UTF_8);
    Files.createSymbolicLink(runs.resolve("state-link"), state);
    Files.createSymbolicLink(runs.resolve("dl1-link"), runs.resolve("dl1"));

    for (String out :
        List.of(
            "eval-state/jobs/" + first.getId(),
            "eval-state/jobs",
            "eval-state",
            "eval-state/elsewhere",
            "eval-state/../eval-state/jobs/x",
            "state-link/jobs/" + first.getId())) {
      refused(
          request(OTHER_SPEC, out), Status.Code.PERMISSION_DENIED, "output_dir", "state folder");
    }
    for (String out : List.of("dl1/cells", "dl1/a/b", "dl1-link/cells")) {
      refused(request(SPEC, out), Status.Code.FAILED_PRECONDITION, "output_dir", "lies inside");
    }
    for (String out : List.of("dl1", "dl1/", "./dl1", "dl1-link")) {
      refused(request(OTHER_SPEC, out), Status.Code.ALREADY_EXISTS, "output_dir", first.getId());
    }
    Job nested = ran(SPEC, "group/one");
    refused(request(SPEC, "group"), Status.Code.FAILED_PRECONDITION, "output_dir", "holds");
    refused(request(SPEC, "group"), Status.Code.FAILED_PRECONDITION, "output_dir", nested.getId());

    assertThat(Files.readString(record, StandardCharsets.UTF_8)).isEqualTo(recorded);
    assertThat(state.resolve("jobs")).isDirectory();
    try (var listing = Files.list(state.resolve("jobs"))) {
      assertThat(listing.map(p -> p.getFileName().toString()))
          .containsExactlyInAnyOrder(first.getId(), nested.getId());
    }
    stop();
    open();
    assertThat(stub.listJobs(ListJobsRequest.getDefaultInstance()).getJobsList())
        .extracting(Job::getId)
        .containsExactly(first.getId(), nested.getId());
  }

  @Test
  void theSameJobSentAgainResumesInItsOwnFolder() {
    Job first = ran(SPEC, "dl1");
    Job again = ran(SPEC, "dl1/");
    assertThat(again.getId()).isNotEqualTo(first.getId());
    assertThat(again.getState()).isEqualTo(JobState.JOB_STATE_SUCCEEDED);
    assertThat(again.getOutputDir()).isEqualTo(first.getOutputDir());
  }

  @Test
  void aJobFolderReplacedByALinkServesNoFileOfWhatItPointsAt() throws Exception {
    Job job = ran(SPEC, "dl1");
    Path etc = Files.createDirectories(tmp.resolve("etc"));
    Files.writeString(etc.resolve("passwd"), "root:x:0:0:root:/root:/bin/sh\n");
    Path folder = runs.resolve("dl1");
    Files.delete(folder.resolve("leaderboard.md"));
    Files.delete(folder);
    Files.createSymbolicLink(folder, etc);

    assertThatThrownBy(() -> read(job.getId(), "passwd"))
        .isInstanceOfSatisfying(
            StatusRuntimeException.class,
            e -> {
              assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.PERMISSION_DENIED);
              assertThat(StatusMapper.violatedField(e)).isEqualTo("job_id");
            });
    assertThatThrownBy(
            () -> stub.listJobFiles(ListJobFilesRequest.newBuilder().setJobId(job.getId()).build()))
        .isInstanceOfSatisfying(
            StatusRuntimeException.class,
            e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.PERMISSION_DENIED));
    assertThatThrownBy(
            () ->
                stub.getResults(GetResultsRequest.newBuilder().setJobId(job.getId()).build())
                    .forEachRemaining(cell -> {}))
        .isInstanceOfSatisfying(
            StatusRuntimeException.class,
            e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.PERMISSION_DENIED));
  }

  @Test
  void aFolderInsideAJobReplacedByALinkIsNotFollowed() throws Exception {
    Job job = ran(SPEC, "dl1");
    Path etc = Files.createDirectories(tmp.resolve("etc"));
    Files.writeString(etc.resolve("passwd"), "root:x:0:0:root:/root:/bin/sh\n");
    Files.createSymbolicLink(runs.resolve("dl1/cells"), etc);
    assertThatThrownBy(() -> read(job.getId(), "cells/passwd"))
        .isInstanceOfSatisfying(
            StatusRuntimeException.class,
            e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.PERMISSION_DENIED));
    assertThat(
            stub.listJobFiles(ListJobFilesRequest.newBuilder().setJobId(job.getId()).build())
                .getFilesList())
        .extracting(dev.tenbin.proto.eval.v1.JobFile::getPath)
        .containsExactly("leaderboard.md");
  }

  private byte[] read(String job, String path) {
    java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
    stub.readJobFile(ReadJobFileRequest.newBuilder().setJobId(job).setPath(path).build())
        .forEachRemaining(chunk -> out.writeBytes(chunk.getData().toByteArray()));
    return out.toByteArray();
  }

  @Test
  void temporariesLeftInAJobFolderAreNeitherListedNorServed() throws Exception {
    Job job = ran(SPEC, "dl1");
    String left = ".job.json." + UUID.randomUUID() + ".tmp";
    Files.writeString(runs.resolve("dl1").resolve(left), "{\"half a plan");
    assertThat(
            stub.listJobFiles(ListJobFilesRequest.newBuilder().setJobId(job.getId()).build())
                .getFilesList())
        .extracting(dev.tenbin.proto.eval.v1.JobFile::getPath)
        .containsExactly("leaderboard.md");
    assertThatThrownBy(() -> read(job.getId(), left))
        .isInstanceOfSatisfying(
            StatusRuntimeException.class,
            e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.NOT_FOUND));
  }

  /** A line break, an escape sequence, DEL, C1 controls and the Unicode line separators. */
  static final List<String> CONTROLS =
      List.of("\n", "\r", "\u001b[31m", "\u0000", "\u007f", "\u0085", "\u009b", "\u2028", "\u2029");

  private static final String FORGED = "2026-12-02 00:00:00.000 ERROR [main] forged line";

  @Test
  void controlCharactersInAnyStringOfAJobAreRefusedNamingTheField() {
    for (String control : CONTROLS) {
      String bad = "x" + control + FORGED;
      String yamlBad = yamlEscaped(bad);
      refused(request(SPEC, bad), Status.Code.INVALID_ARGUMENT, "output_dir", "control character");
      refused(
          request(SPEC, "out").toBuilder().setTaskSets(0, document(bad, TASKS, "")).build(),
          Status.Code.INVALID_ARGUMENT,
          "task_sets[0].name",
          "control character");
      refused(
          request(SPEC, "out").toBuilder()
              .setTaskSets(0, document("tasks.yaml", TASKS, "/" + bad))
              .build(),
          Status.Code.INVALID_ARGUMENT,
          "task_sets[0].base_dir",
          "control character");
      refused(
          request(
              "name: \"" + yamlBad + "\"\ntask_sets: [tasks.yaml]\nretrievers: [bm25]\n", "out"),
          Status.Code.INVALID_ARGUMENT,
          "spec_yaml.name",
          "control character");
      refused(
          request(
              "name: t\ntask_sets: [tasks.yaml]\nretrievers: [bm25, \"dense:" + yamlBad + "\"]\n",
              "out"),
          Status.Code.INVALID_ARGUMENT,
          "spec_yaml.retrievers[1]",
          "control character");
      refused(
          request(SPEC, "out").toBuilder()
              .setTaskSets(
                  0,
                  document(
                      "tasks.yaml",
                      "name: b\ntasks:\n  - {name: \""
                          + yamlBad
                          + "\", language: en, source: {hub: owner/data, revision: main}}\n",
                      ""))
              .build(),
          Status.Code.INVALID_ARGUMENT,
          "task_sets[0].tasks[0].name",
          "control character");
    }
    // Written literally (not escaped) into the YAML text, a separator is refused as the text's.
    refused(
        request(
            "name: t\u2028" + FORGED + "\ntask_sets: [tasks.yaml]\nretrievers: [bm25]\n", "out"),
        Status.Code.INVALID_ARGUMENT,
        "spec_yaml",
        "control character");
    assertThat(stub.listJobs(ListJobsRequest.getDefaultInstance()).getJobsList()).isEmpty();
    // A task set's description is free text: its lines are kept.
    Job described =
        ran(
            SPEC,
            "out",
            document(
                "tasks.yaml",
                "name: b\ndescription: |\n  two\n  lines\n"
                    + TASKS.substring(TASKS.indexOf('\n') + 1),
                ""));
    assertThat(described.getState()).isEqualTo(JobState.JOB_STATE_SUCCEEDED);
  }

  /** {@code text} inside a double-quoted YAML scalar, its control characters as escapes. */
  private static String yamlEscaped(String text) {
    StringBuilder out = new StringBuilder();
    for (char c : text.toCharArray()) {
      if (c < 0x20 || (c >= 0x7f && c <= 0x9f) || c == '\u2028' || c == '\u2029') {
        out.append(String.format("\\u%04x", (int) c));
      } else {
        out.append(c);
      }
    }
    return out.toString();
  }

  private static TaskSetDocument document(String name, String yaml, String baseDir) {
    return TaskSetDocument.newBuilder().setName(name).setYaml(yaml).setBaseDir(baseDir).build();
  }

  private Job ran(String spec, String out, TaskSetDocument document) {
    Job job =
        stub.submitJob(request(spec, out).toBuilder().setTaskSets(0, document).build()).getJob();
    stub.watchJob(WatchJobRequest.newBuilder().setJobId(job.getId()).build())
        .forEachRemaining(update -> {});
    return stub.getJob(GetJobRequest.newBuilder().setJobId(job.getId()).build()).getJob();
  }

  @Test
  void aDownloadWritesNothingThroughALinkInItsFolder() throws Exception {
    Job job = ran(SPEC, "dl1");
    Files.createDirectories(runs.resolve("dl1/cells"));
    Files.writeString(runs.resolve("dl1/cells/ab.cell.json"), "{}");
    Path outside = Files.createDirectories(tmp.resolve("outside"));
    Path victim = Files.writeString(outside.resolve("victim.txt"), "precious\n");
    JobDownload download = new JobDownload(EvalClient.of(channel));

    Path partial = Files.createDirectories(tmp.resolve("copy-partial"));
    Files.createSymbolicLink(partial.resolve("leaderboard.md.partial"), victim);
    Path cells = Files.createDirectories(tmp.resolve("copy-cells"));
    Files.createSymbolicLink(cells.resolve("cells"), outside);
    Path target = Files.createDirectories(tmp.resolve("copy-target"));
    Files.createSymbolicLink(target.resolve("leaderboard.md"), victim);
    for (Path into : List.of(partial, cells, target)) {
      assertThatThrownBy(() -> download.into(job.getId(), into))
          .as("%s", into)
          .isInstanceOf(JobDownload.UnsafeFolderException.class)
          .hasMessageContaining("symbolic link");
    }
    assertThat(Files.readString(victim)).isEqualTo("precious\n");
    try (var left = Files.list(outside)) {
      assertThat(left).containsExactly(victim);
    }

    // A clean folder takes the whole job, and a second download changes nothing.
    Path clean = tmp.resolve("copy");
    assertThat(download.into(job.getId(), clean).downloaded()).isEqualTo(2);
    assertThat(Files.readString(clean.resolve("cells/ab.cell.json"))).isEqualTo("{}");
    assertThat(download.into(job.getId(), clean).unchanged()).isEqualTo(2);
  }

  @Test
  void aModelNoServiceKnowsIsRefusedAtSubmitNamingTheSpecField() {
    stop();
    models =
        new ModelCatalog() {
          @Override
          public java.util.Optional<java.util.Set<String>> encoderModels() {
            return java.util.Optional.of(java.util.Set.of("bge-small-en-v1.5"));
          }

          @Override
          public java.util.Optional<java.util.Set<String>> crossEncoders() {
            return java.util.Optional.of(java.util.Set.of("minilm-ce"));
          }
        };
    open();
    String head = "name: m\ntask_sets: [tasks.yaml]\n";
    String candidates = "candidates: {dense_model: bge-small-en-v1.5}\n";
    refused(
        request(head + "retrievers: [bm25, dense:no-such-model]\n", "m"),
        Status.Code.INVALID_ARGUMENT,
        "spec_yaml.retrievers[1]",
        "the encoder service knows no model 'no-such-model'");
    refused(
        request(head + "retrievers: [\"hybrid:bm25+light:no-such-model\"]\n", "m"),
        Status.Code.INVALID_ARGUMENT,
        "spec_yaml.retrievers[0]",
        "no-such-model");
    refused(
        request(head + "rerankers: [dense:no-such-model]\n" + candidates, "m"),
        Status.Code.INVALID_ARGUMENT,
        "spec_yaml.rerankers[0]",
        "the encoder service knows no model");
    refused(
        request(head + "rerankers: [no-such-cross-encoder]\n" + candidates, "m"),
        Status.Code.INVALID_ARGUMENT,
        "spec_yaml.rerankers[0]",
        "the rerank service knows no reranker 'no-such-cross-encoder' (it has minilm-ce");
    refused(
        request(head + "rerankers: [minilm-ce]\ncandidates: {dense_model: nope}\n", "m"),
        Status.Code.INVALID_ARGUMENT,
        "spec_yaml.candidates.dense_model",
        "'nope'");
    assertThat(stub.listJobs(ListJobsRequest.getDefaultInstance()).getJobsList()).isEmpty();

    Job known =
        ran(
            head
                + "retrievers: [bm25, dense:BGE-small-en-v1.5, \"dense:hub:owner/model@main\"]\n"
                + "rerankers: [minilm-ce, dense:bge-small-en-v1.5]\n"
                + candidates,
            "m");
    assertThat(known.getState()).isEqualTo(JobState.JOB_STATE_SUCCEEDED);
  }
}
