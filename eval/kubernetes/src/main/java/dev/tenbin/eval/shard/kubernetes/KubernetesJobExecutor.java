package dev.tenbin.eval.shard.kubernetes;

import dev.tenbin.core.Cancellation;
import dev.tenbin.eval.job.AdmittedJob;
import dev.tenbin.eval.job.JobListener;
import dev.tenbin.eval.job.JobManager;
import dev.tenbin.eval.job.JobOutcome;
import dev.tenbin.eval.plan.Work;
import dev.tenbin.eval.shard.JobMerge;
import dev.tenbin.eval.shard.ShardInputs;
import io.kubernetes.client.openapi.apis.BatchV1Api;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * The eval service's {@code --executor kubernetes}: a job it admitted runs as one Indexed Job of
 * {@code --parallelism} shards, each pod a {@code tenbin run --shard I/K} writing cells into the
 * job's folder on the shared results volume; this process plans the job, follows the Job (shards
 * done are the job's progress), and merges when it completes (leaderboards and warehouse, computing
 * nothing). A failed Job fails the job naming its failed shards; a client's cancel deletes the Job;
 * the service shutting down leaves it running, and the next start finds it again by its job-id
 * label rather than creating a second one.
 */
public final class KubernetesJobExecutor implements JobManager.Executor {
  /** The label naming the eval-service job a Kubernetes Job runs. */
  public static final String JOB_ID_LABEL = "tenbin.dev/job-id";

  /**
   * How the service's jobs run on the cluster.
   *
   * @param namespace where the Jobs are created
   * @param image the Tenbin image of the pods
   * @param parallelism shards of each job, all run at once
   * @param retries backoffLimitPerIndex
   * @param ttlSecondsAfterFinished how long a finished Job and its pods stay
   * @param resultsClaim the ReadWriteMany claim holding the results root, mounted in the pods at
   *     the service's results root (so a job folder has the same path in both)
   * @param resultsRoot the service's results root
   * @param resources requests and limits of each pod
   * @param serviceAccount the pods' service account ("" for the namespace's default)
   * @param podArgs the pods' {@code tenbin run} options besides the spec, {@code --out} and {@code
   *     --shard}: the services' endpoints and how to reach them
   * @param mounts the Secrets and claims the pods mount (TLS, auth token, datasets)
   * @param firstDataRoot where task sets sent without a base folder resolve relative paths, or null
   * @param pollInterval how often the Job's status is read
   * @param hub how the pods reach a Hugging Face hub
   */
  public record Settings(
      String namespace,
      String image,
      int parallelism,
      int retries,
      int ttlSecondsAfterFinished,
      String resultsClaim,
      Path resultsRoot,
      Map<String, String> resources,
      String serviceAccount,
      List<String> podArgs,
      List<IndexedJobSettings.Mount> mounts,
      Path firstDataRoot,
      Duration pollInterval,
      IndexedJobSettings.PodHub hub) {
    public Settings {
      resources = Map.copyOf(resources);
      podArgs = List.copyOf(podArgs);
      mounts = List.copyOf(mounts);
    }
  }

  private final BatchV1Api api;
  private final Settings settings;
  private final Function<AdmittedJob, List<Work>> planner;
  private final Consumer<Path> reports;
  private final PrintWriter log;

  /**
   * @param planner plans a job (the service's launcher: it asks the services for model facts)
   * @param reports writes the leaderboards and the warehouse of a complete job folder
   * @param log where the Job's progress lines go
   */
  public KubernetesJobExecutor(
      BatchV1Api api,
      Settings settings,
      Function<AdmittedJob, List<Work>> planner,
      Consumer<Path> reports,
      PrintWriter log) {
    this.api = api;
    this.settings = settings;
    this.planner = planner;
    this.reports = reports;
    this.log = log;
  }

  /** The Job's name for a job id ({@code job-} and 12 hex digits: a DNS label). */
  public static String jobName(String jobId) {
    return "tenbin-" + jobId.toLowerCase(Locale.ROOT);
  }

  /** The Indexed Job of {@code job}, whose pods read {@code specFile}. */
  public IndexedJobSettings jobSettings(AdmittedJob job, Path specFile) {
    List<String> args = new ArrayList<>();
    args.add(specFile.toString());
    args.add("--out");
    args.add(job.directory().toString());
    args.add("--progress");
    args.add("lines");
    args.addAll(settings.podArgs());
    return new IndexedJobSettings(
        settings.namespace(),
        jobName(job.id()),
        settings.image(),
        settings.parallelism(),
        settings.parallelism(),
        settings.retries(),
        settings.ttlSecondsAfterFinished(),
        settings.resultsClaim(),
        settings.resultsRoot().toString(),
        args,
        settings.resources(),
        settings.serviceAccount(),
        Map.of(JOB_ID_LABEL, job.id()),
        settings.mounts(),
        settings.hub());
  }

  @Override
  public JobOutcome run(AdmittedJob job, JobListener listener, Cancellation cancellation) {
    return run(job, listener, cancellation, Cancellation.NEVER);
  }

  @Override
  public JobOutcome run(
      AdmittedJob job, JobListener listener, Cancellation cancelled, Cancellation stopping) {
    long start = System.nanoTime();
    List<Work> plan = planner.apply(job);
    JobMerge.Result before = JobMerge.check(job.directory(), plan);
    listener.planned(before.cellsTotal(), before.cellsStored());
    if (before.complete() && !cancelled.isCancelled() && !stopping.isCancelled()) {
      // Every cell is stored (e.g. the Job completed while the service was down): only the merge.
      reports.accept(job.directory());
      return new JobOutcome(
          before.cellsTotal(),
          before.cellsStored(),
          0,
          List.of(),
          false,
          (System.nanoTime() - start) / 1_000_000);
    }
    IndexedJobSettings jobSettings =
        jobSettings(job, ShardInputs.write(job, settings.firstDataRoot()));
    KubernetesExecutor executor =
        new KubernetesExecutor(api, jobSettings, log, settings.pollInterval());
    KubernetesExecutor.Result result =
        executor.run(
            cancelled,
            stopping,
            (completed, failed, active) ->
                listener.progress(
                    JobMerge.check(job.directory(), plan).cellsStored(),
                    String.format(
                        Locale.ROOT,
                        "Kubernetes Job %s: %d/%d shards done, %d running, %d failed",
                        executor.jobName(),
                        completed.size(),
                        jobSettings.shards(),
                        active,
                        failed.size())));
    JobMerge.Result after = JobMerge.check(job.directory(), plan);
    listener.progress(after.cellsStored(), "");
    long elapsed = (System.nanoTime() - start) / 1_000_000;
    int computed = Math.max(0, after.cellsStored() - before.cellsStored());
    List<String> failures = new ArrayList<>();
    switch (result.state()) {
      case CANCELLED, DETACHED -> {
        return new JobOutcome(
            after.cellsTotal(), before.cellsStored(), computed, List.of(), true, elapsed);
      }
      case FAILED ->
          failures.add(
              "the Kubernetes Job "
                  + settings.namespace()
                  + "/"
                  + executor.jobName()
                  + " failed; failed shards "
                  + result.failed()
                  + " of "
                  + jobSettings.shards()
                  + (result.message().isEmpty() ? "" : " (" + result.message() + ")")
                  + "; submit the job again to compute only the missing cells");
      case SUCCEEDED -> {
        if (!after.complete()) {
          failures.add(
              "the Kubernetes Job "
                  + executor.jobName()
                  + " completed but "
                  + after.missing().size()
                  + " of "
                  + after.cellsTotal()
                  + " cells are missing, e.g. "
                  + after.missing().getFirst());
        }
      }
    }
    if (failures.isEmpty()) {
      reports.accept(job.directory());
    }
    return new JobOutcome(
        after.cellsTotal(), before.cellsStored(), computed, failures, false, elapsed);
  }
}
