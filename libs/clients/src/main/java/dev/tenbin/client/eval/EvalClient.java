package dev.tenbin.client.eval;

import dev.tenbin.client.CallPolicy;
import dev.tenbin.client.Pages;
import dev.tenbin.proto.eval.v1.CancelJobRequest;
import dev.tenbin.proto.eval.v1.EvalServiceGrpc;
import dev.tenbin.proto.eval.v1.GetJobRequest;
import dev.tenbin.proto.eval.v1.GetResultsRequest;
import dev.tenbin.proto.eval.v1.GetResultsResponse;
import dev.tenbin.proto.eval.v1.Job;
import dev.tenbin.proto.eval.v1.JobFile;
import dev.tenbin.proto.eval.v1.ListJobFilesRequest;
import dev.tenbin.proto.eval.v1.ListJobsRequest;
import dev.tenbin.proto.eval.v1.ReadJobFileRequest;
import dev.tenbin.proto.eval.v1.ReadJobFileResponse;
import dev.tenbin.proto.eval.v1.SubmitJobRequest;
import dev.tenbin.proto.eval.v1.WatchJobRequest;
import dev.tenbin.proto.eval.v1.WatchJobResponse;
import io.grpc.Channel;
import java.time.Duration;
import java.util.Iterator;
import java.util.List;

/**
 * The Java client of the eval service's v1 contract ({@code tenbin job ...} and the drills use it).
 * Unary calls have a deadline; reading calls are retried after UNAVAILABLE, submitting and
 * cancelling are not. Watching and reading results stream without a deadline: a job may run for
 * hours, and the caller reconnects when a stream breaks.
 */
public final class EvalClient {
  /** The deadline of {@link #of} for unary calls. */
  public static final Duration DEFAULT_DEADLINE = Duration.ofMinutes(1);

  private final Channel channel;
  private final CallPolicy policy;

  public EvalClient(Channel channel, CallPolicy policy) {
    this.channel = channel;
    this.policy = policy;
  }

  /** A client with the default deadline and four attempts. */
  public static EvalClient of(Channel channel) {
    return new EvalClient(channel, new CallPolicy(DEFAULT_DEADLINE, 4));
  }

  /** The same client with another per-call deadline. */
  public EvalClient withDeadline(Duration deadline) {
    return new EvalClient(channel, policy.withDeadline(deadline));
  }

  private EvalServiceGrpc.EvalServiceBlockingStub stub() {
    return policy.deadlined(EvalServiceGrpc.newBlockingStub(channel));
  }

  /** Admits a job; the returned job is queued (or refused with INVALID_ARGUMENT and a reason). */
  public Job submitJob(SubmitJobRequest request) {
    return stub().submitJob(request).getJob();
  }

  public Job getJob(String jobId) {
    return policy
        .retrying(() -> stub().getJob(GetJobRequest.newBuilder().setJobId(jobId).build()))
        .getJob();
  }

  public Job cancelJob(String jobId) {
    return stub().cancelJob(CancelJobRequest.newBuilder().setJobId(jobId).build()).getJob();
  }

  /** Every job of the table, oldest first. */
  public List<Job> listJobs() {
    return Pages.all(
        token -> {
          var page =
              policy.retrying(
                  () -> stub().listJobs(ListJobsRequest.newBuilder().setPageToken(token).build()));
          return new Pages.Page<>(page.getJobsList(), page.getNextPageToken());
        });
  }

  /** The job's state each time it changes, until it ends; no deadline. */
  public Iterator<WatchJobResponse> watchJob(String jobId) {
    return EvalServiceGrpc.newBlockingStub(channel)
        .watchJob(WatchJobRequest.newBuilder().setJobId(jobId).build());
  }

  /** Every file of the job's folder, in path order. */
  public List<JobFile> listJobFiles(String jobId) {
    return Pages.all(
        token -> {
          var page =
              policy.retrying(
                  () ->
                      stub()
                          .listJobFiles(
                              ListJobFilesRequest.newBuilder()
                                  .setJobId(jobId)
                                  .setPageToken(token)
                                  .build()));
          return new Pages.Page<>(page.getFilesList(), page.getNextPageToken());
        });
  }

  /**
   * One file of the job's folder from an offset, in chunks; no deadline (a large warehouse over a
   * slow link). {@link JobDownload} resumes it when the stream breaks.
   */
  public Iterator<ReadJobFileResponse> readJobFile(ReadJobFileRequest request) {
    return EvalServiceGrpc.newBlockingStub(channel).readJobFile(request);
  }

  /** The job's stored results, in order; no deadline. */
  public Iterator<GetResultsResponse> getResults(GetResultsRequest request) {
    return EvalServiceGrpc.newBlockingStub(channel).getResults(request);
  }
}
