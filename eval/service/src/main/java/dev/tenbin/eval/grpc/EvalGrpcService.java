package dev.tenbin.eval.grpc;

import com.google.protobuf.Timestamp;
import dev.tenbin.eval.job.JobFileDigests;
import dev.tenbin.eval.job.JobFiles;
import dev.tenbin.eval.job.JobManager;
import dev.tenbin.eval.job.JobRequest;
import dev.tenbin.eval.result.RankingMode;
import dev.tenbin.eval.store.CellRecord;
import dev.tenbin.eval.store.ResultStore;
import dev.tenbin.eval.store.StoredDoc;
import dev.tenbin.eval.store.StoredQuery;
import dev.tenbin.proto.common.v1.Ranking;
import dev.tenbin.proto.common.v1.ScoredDocument;
import dev.tenbin.proto.eval.v1.CancelJobRequest;
import dev.tenbin.proto.eval.v1.CancelJobResponse;
import dev.tenbin.proto.eval.v1.CellResult;
import dev.tenbin.proto.eval.v1.EvalMode;
import dev.tenbin.proto.eval.v1.EvalServiceGrpc;
import dev.tenbin.proto.eval.v1.GetJobRequest;
import dev.tenbin.proto.eval.v1.GetJobResponse;
import dev.tenbin.proto.eval.v1.GetResultsRequest;
import dev.tenbin.proto.eval.v1.GetResultsResponse;
import dev.tenbin.proto.eval.v1.Job;
import dev.tenbin.proto.eval.v1.JobFile;
import dev.tenbin.proto.eval.v1.JobState;
import dev.tenbin.proto.eval.v1.ListJobFilesRequest;
import dev.tenbin.proto.eval.v1.ListJobFilesResponse;
import dev.tenbin.proto.eval.v1.ListJobsRequest;
import dev.tenbin.proto.eval.v1.ListJobsResponse;
import dev.tenbin.proto.eval.v1.MetricValue;
import dev.tenbin.proto.eval.v1.ReadJobFileRequest;
import dev.tenbin.proto.eval.v1.ReadJobFileResponse;
import dev.tenbin.proto.eval.v1.SubmitJobRequest;
import dev.tenbin.proto.eval.v1.SubmitJobResponse;
import dev.tenbin.proto.eval.v1.TaskSetDocument;
import dev.tenbin.proto.eval.v1.WatchJobRequest;
import dev.tenbin.proto.eval.v1.WatchJobResponse;
import dev.tenbin.rpc.Paging;
import dev.tenbin.rpc.ResponseSequence;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;
import java.nio.file.Files;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Adapter for {@code tenbin.eval.v1} over a {@link JobManager}: submit, get, watch (a stream of job
 * states until it ends), cancel, list, and the stored results of a job, one cell at a time. Errors
 * are exceptions mapped to statuses by the shared interceptor (unknown job: NOT_FOUND; bad spec or
 * task set: INVALID_ARGUMENT naming the field; a path outside the service's roots:
 * PERMISSION_DENIED naming the field).
 */
public final class EvalGrpcService extends EvalServiceGrpc.EvalServiceImplBase {
  private final JobManager jobs;
  private final JobFileDigests digests;

  public EvalGrpcService(JobManager jobs) {
    this(jobs, new JobFileDigests());
  }

  /**
   * @param digests the digests of job files listed before, reused while a file is unchanged
   */
  public EvalGrpcService(JobManager jobs, JobFileDigests digests) {
    this.jobs = jobs;
    this.digests = digests;
  }

  @Override
  public void submitJob(SubmitJobRequest request, StreamObserver<SubmitJobResponse> response) {
    List<JobRequest.TaskSetDocument> taskSets = new ArrayList<>();
    for (TaskSetDocument document : request.getTaskSetsList()) {
      taskSets.add(
          new JobRequest.TaskSetDocument(
              document.getName(), document.getYaml(), document.getBaseDir()));
    }
    JobManager.Snapshot job =
        jobs.submit(new JobRequest(request.getSpecYaml(), taskSets, request.getOutputDir()));
    response.onNext(SubmitJobResponse.newBuilder().setJob(proto(job)).build());
    response.onCompleted();
  }

  @Override
  public void getJob(GetJobRequest request, StreamObserver<GetJobResponse> response) {
    response.onNext(
        GetJobResponse.newBuilder().setJob(proto(jobs.get(request.getJobId()))).build());
    response.onCompleted();
  }

  @Override
  public void listJobs(ListJobsRequest request, StreamObserver<ListJobsResponse> response) {
    Paging.Page<JobManager.Snapshot> page =
        Paging.page("jobs", jobs.list(), request.getPageSize(), request.getPageToken());
    ListJobsResponse.Builder out =
        ListJobsResponse.newBuilder().setNextPageToken(page.nextPageToken());
    page.items().forEach(job -> out.addJobs(proto(job)));
    response.onNext(out.build());
    response.onCompleted();
  }

  @Override
  public void cancelJob(CancelJobRequest request, StreamObserver<CancelJobResponse> response) {
    response.onNext(
        CancelJobResponse.newBuilder().setJob(proto(jobs.cancel(request.getJobId()))).build());
    response.onCompleted();
  }

  /**
   * Streams the job's states until it ends, under flow control ({@link LatestValueStream}): a
   * reader that does not keep up gets the newest state when it asks again, never a backlog.
   */
  @Override
  public void watchJob(WatchJobRequest request, StreamObserver<WatchJobResponse> response) {
    ServerCallStreamObserver<WatchJobResponse> call =
        (ServerCallStreamObserver<WatchJobResponse>) response;
    LatestValueStream<WatchJobResponse> stream =
        new LatestValueStream<>(call, update -> isFinished(update.getJob().getState()));
    Runnable stop =
        jobs.watch(
            request.getJobId(),
            snapshot ->
                stream.offer(WatchJobResponse.newBuilder().setJob(proto(snapshot)).build()));
    stream.whenEnded(stop);
  }

  private static boolean isFinished(JobState state) {
    return switch (state) {
      case JOB_STATE_SUCCEEDED, JOB_STATE_FAILED, JOB_STATE_CANCELLED -> true;
      default -> false;
    };
  }

  @Override
  public void getResults(GetResultsRequest request, StreamObserver<GetResultsResponse> response) {
    java.nio.file.Path directory = jobs.directory(request.getJobId());
    JobFiles.checkFolder(jobs.admission().resultsRoot(), directory);
    if (Files.isDirectory(directory.resolve("cells"))) {
      for (CellRecord cell : ResultStore.existing(directory, "job_id").readAll()) {
        response.onNext(GetResultsResponse.newBuilder().setCell(proto(cell)).build());
      }
    }
    response.onCompleted();
  }

  @Override
  public void listJobFiles(
      ListJobFilesRequest request, StreamObserver<ListJobFilesResponse> response) {
    List<JobFiles.JobFile> files =
        JobFiles.list(jobs.admission().resultsRoot(), jobs.directory(request.getJobId()), digests);
    Paging.Page<JobFiles.JobFile> page =
        Paging.page("job files", files, request.getPageSize(), request.getPageToken());
    ListJobFilesResponse.Builder out =
        ListJobFilesResponse.newBuilder().setNextPageToken(page.nextPageToken());
    for (JobFiles.JobFile file : page.items()) {
      out.addFiles(
          JobFile.newBuilder()
              .setPath(file.path())
              .setSizeBytes(file.sizeBytes())
              .setSha256(file.sha256()));
    }
    response.onNext(out.build());
    response.onCompleted();
  }

  /** Largest chunk of a file in one message. */
  static final int FILE_CHUNK_BYTES = 1 << 20;

  /**
   * Streams the file as the client takes it (flow control: a chunk is read only while the stream is
   * ready, so a slow client holds no more than a chunk or two in memory).
   */
  @Override
  public void readJobFile(
      ReadJobFileRequest request, StreamObserver<ReadJobFileResponse> response) {
    ServerCallStreamObserver<ReadJobFileResponse> call =
        (ServerCallStreamObserver<ReadJobFileResponse>) response;
    java.io.InputStream in =
        JobFiles.open(
            jobs.admission().resultsRoot(),
            jobs.directory(request.getJobId()),
            request.getPath(),
            request.getOffset());
    ResponseSequence.send(
        call,
        new ResponseSequence.Source<>() {
          private boolean atEnd;

          @Override
          public boolean hasNext() {
            return !atEnd;
          }

          @Override
          public ReadJobFileResponse next() {
            byte[] chunk;
            try {
              chunk = in.readNBytes(FILE_CHUNK_BYTES);
            } catch (java.io.IOException e) {
              throw io.grpc.Status.UNAVAILABLE
                  .withDescription("reading " + request.getPath() + " failed: " + e.getMessage())
                  .asRuntimeException();
            }
            atEnd = chunk.length < FILE_CHUNK_BYTES;
            return chunk.length == 0
                ? null
                : ReadJobFileResponse.newBuilder()
                    .setData(com.google.protobuf.ByteString.copyFrom(chunk))
                    .build();
          }

          @Override
          public void close() {
            try {
              in.close();
            } catch (java.io.IOException e) {
              // Nothing was written: closing a read-only file that failed is harmless.
            }
          }
        });
  }

  static Job proto(JobManager.Snapshot job) {
    Job.Builder out =
        Job.newBuilder()
            .setId(job.id())
            .setState(
                switch (job.state()) {
                  case QUEUED -> JobState.JOB_STATE_QUEUED;
                  case RUNNING -> JobState.JOB_STATE_RUNNING;
                  case SUCCEEDED -> JobState.JOB_STATE_SUCCEEDED;
                  case FAILED -> JobState.JOB_STATE_FAILED;
                  case CANCELLED -> JobState.JOB_STATE_CANCELLED;
                })
            .setCellsTotal(job.cellsTotal())
            .setCellsDone(job.cellsDone())
            .setCellsCached(job.cellsCached())
            .setRunningCell(job.runningWork())
            .setError(job.error())
            .setOutputDir(job.outputDirectory().toString())
            .setName(job.name());
    if (!job.error().isEmpty()) {
      out.setErrorStatus(
          com.google.rpc.Status.newBuilder()
              .setCode(errorCode(job.errorCode()).value())
              .setMessage(job.error()));
    }
    if (job.submitted() != null) {
      out.setSubmitTime(timestamp(job.submitted()));
    }
    if (job.started() != null) {
      out.setStartTime(timestamp(job.started()));
    }
    if (job.ended() != null) {
      out.setEndTime(timestamp(job.ended()));
    }
    return out.build();
  }

  /** A job's error code; UNKNOWN for a job table written before codes were kept. */
  private static io.grpc.Status.Code errorCode(String name) {
    try {
      return name.isEmpty() ? io.grpc.Status.Code.UNKNOWN : io.grpc.Status.Code.valueOf(name);
    } catch (IllegalArgumentException e) {
      return io.grpc.Status.Code.UNKNOWN;
    }
  }

  private static Timestamp timestamp(Instant instant) {
    return Timestamp.newBuilder()
        .setSeconds(instant.getEpochSecond())
        .setNanos(instant.getNano())
        .build();
  }

  static CellResult proto(CellRecord cell) {
    CellResult.Builder out =
        CellResult.newBuilder()
            .setFingerprint(cell.fingerprint())
            .setModel(cell.key().system().name())
            .setTask(cell.key().task().benchmark() + "/" + cell.key().task().task())
            .setVariant(cell.key().variant())
            .setMode(
                cell.key().mode() == RankingMode.RETRIEVAL
                    ? EvalMode.EVAL_MODE_RETRIEVAL
                    : EvalMode.EVAL_MODE_RERANK)
            .setNumQueries(cell.queries().size());
    for (Map.Entry<String, Double> metric : cell.metrics().entrySet()) {
      out.addMetrics(MetricValue.newBuilder().setName(metric.getKey()).setValue(metric.getValue()));
    }
    for (StoredQuery query : cell.queries()) {
      Ranking.Builder ranking = Ranking.newBuilder().setQueryId(query.queryId());
      for (StoredDoc doc : query.docs()) {
        ranking.addDocuments(
            ScoredDocument.newBuilder()
                .setDocId(doc.docId())
                .setScore((float) doc.score())
                .setRank(doc.rank()));
      }
      out.addRankings(ranking);
    }
    return out.build();
  }
}
