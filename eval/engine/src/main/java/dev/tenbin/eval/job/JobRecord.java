package dev.tenbin.eval.job;

import java.nio.file.Path;
import java.time.Instant;

/**
 * A job as the job table keeps it: everything needed to run it again after a restart (the request
 * as the client sent it, task sets inlined) and everything a client may ask about it later.
 *
 * @param id the job's id ({@code job-} and 12 hex digits)
 * @param sequence submission order, increasing over the table's lifetime
 * @param name the spec's name
 * @param state where it is in its lifecycle
 * @param cancelRequested a client asked to cancel it (a job that was running when the service
 *     stopped is then not resumed)
 * @param request what the client sent
 * @param outputDirectory the job's folder, inside the results root
 * @param submitted when it was accepted
 * @param started when it last started or resumed; null while queued
 * @param ended when it finished; null until then
 * @param cellsTotal cells in the plan (0 until planned)
 * @param cellsDone cells stored, including those found already stored
 * @param cellsCached cells found already stored when the run began
 * @param error failures, {@code "; "}-separated; empty when none
 * @param errorCode the gRPC status code name of the failure ({@code INVALID_ARGUMENT}, {@code
 *     UNAVAILABLE}, {@code INTERNAL}, ...); empty when none, or when the table was written before
 *     codes were kept
 */
public record JobRecord(
    String id,
    long sequence,
    String name,
    JobManager.State state,
    boolean cancelRequested,
    JobRequest request,
    Path outputDirectory,
    Instant submitted,
    Instant started,
    Instant ended,
    int cellsTotal,
    int cellsDone,
    int cellsCached,
    String error,
    String errorCode) {

  public JobRecord {
    error = error == null ? "" : error;
    errorCode = errorCode == null ? "" : errorCode;
  }

  /** A record without an error code. */
  public JobRecord(
      String id,
      long sequence,
      String name,
      JobManager.State state,
      boolean cancelRequested,
      JobRequest request,
      Path outputDirectory,
      Instant submitted,
      Instant started,
      Instant ended,
      int cellsTotal,
      int cellsDone,
      int cellsCached,
      String error) {
    this(
        id,
        sequence,
        name,
        state,
        cancelRequested,
        request,
        outputDirectory,
        submitted,
        started,
        ended,
        cellsTotal,
        cellsDone,
        cellsCached,
        error,
        "");
  }
}
