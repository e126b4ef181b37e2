package dev.tenbin.eval.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenbin.eval.job.JobLauncher;
import dev.tenbin.eval.job.JobManager;
import dev.tenbin.eval.job.JobRequest;
import dev.tenbin.eval.job.ServiceFolders;
import dev.tenbin.eval.report.JobReports;
import dev.tenbin.eval.shard.kubernetes.IndexedJobSettings;
import dev.tenbin.eval.shard.kubernetes.KubernetesJobExecutor;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.http.RecordedRequest;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.apis.BatchV1Api;
import io.kubernetes.client.openapi.models.V1Container;
import io.kubernetes.client.openapi.models.V1Job;
import io.kubernetes.client.openapi.models.V1JobCondition;
import io.kubernetes.client.openapi.models.V1JobStatus;
import io.kubernetes.client.util.ClientBuilder;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.Writer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The eval service's {@code --executor kubernetes}, through its {@link JobManager}, against a
 * loopback API server (fabric8's mock in CRUD mode) with this test as the Job controller: it runs
 * each index's pod command in-process and writes the Job's status as Kubernetes would.
 */
class EvalServiceKubernetesTest {
  private static final String NAMESPACE = "tenbin";

  @TempDir Path tmp;
  private KubernetesMockServer server;
  private BatchV1Api api;
  private Path models;
  private ServiceFolders folders;
  private JobManager manager;
  private final StringWriter log = new StringWriter();

  @BeforeEach
  void start() throws Exception {
    server = MockKubernetes.crudServer();
    api =
        new BatchV1Api(
            ClientBuilder.standard(false)
                .setBasePath(server.url("/").replaceAll("/$", ""))
                .build());
    TinyJob.write(tmp);
    models = TinyJob.models(tmp);
    folders =
        new ServiceFolders(
            tmp.resolve("state"), tmp.resolve("results"), List.of(tmp.resolve("data")));
  }

  @AfterEach
  void stop() {
    if (manager != null) {
      manager.close();
    }
    server.destroy();
  }

  private JobManager open() throws Exception {
    Files.createDirectories(folders.resultsRoot());
    JobLauncher launcher =
        new JobLauncher(new JobLauncher.Options(null, null, null, models, tmp.resolve("cache")));
    KubernetesJobExecutor executor =
        new KubernetesJobExecutor(
            api,
            new KubernetesJobExecutor.Settings(
                NAMESPACE,
                "registry.example/tenbin:test",
                2,
                1,
                600,
                "tenbin-results",
                folders.resultsRoot().toRealPath(),
                Map.of(),
                "",
                List.of(
                    "--models-dir",
                    models.toString(),
                    "--cache-dir",
                    tmp.resolve("pod-cache").toString()),
                List.of(
                    new IndexedJobSettings.Mount(
                        "tls", IndexedJobSettings.Source.SECRET, "tenbin-tls", "/etc/tenbin/tls")),
                tmp.resolve("data"),
                Duration.ofMillis(30),
                new IndexedJobSettings.PodHub("tenbin-hf", "")),
            job -> launcher.plan(job.spec(), job.taskSets()),
            directory ->
                JobReports.write(
                    directory, new PrintWriter(Writer.nullWriter()), new PrintWriter(log, true)),
            new PrintWriter(log, true));
    return JobManager.open(folders, executor);
  }

  private String submit() {
    JobRequest request =
        new JobRequest(
            """
            name: cluster-job
            task_sets: [tasks.yaml]
            retrievers:
              - bm25
              - {retriever: dense:tiny-dense, variants: [base, int8]}
            """,
            List.of(
                new JobRequest.TaskSetDocument(
                    "tasks.yaml", read(tmp.resolve("tasks.yaml")), tmp.toString())),
            "out");
    return manager.submit(request).id();
  }

  @Test
  void aJobRunsAsOneLabelledIndexedJobReportsShardsAndEndsSucceededWithLeaderboards()
      throws Exception {
    manager = open();
    String id = submit();
    List<String> seen = new CopyOnWriteArrayList<>();
    manager.watch(id, snapshot -> seen.add(snapshot.runningWork()));
    V1Job job = awaitJob(id);

    assertThat(job.getMetadata().getName()).isEqualTo("tenbin-" + id);
    assertThat(job.getMetadata().getLabels()).containsEntry("tenbin.dev/job-id", id);
    assertThat(job.getSpec().getCompletions()).isEqualTo(2);
    assertThat(job.getSpec().getTemplate().getMetadata().getLabels())
        .containsEntry("tenbin.dev/job-id", id)
        .containsEntry("tenbin.dev/client", "true");
    V1Container container = job.getSpec().getTemplate().getSpec().getContainers().getFirst();
    Path directory = manager.directory(id);
    assertThat(container.getArgs())
        .startsWith(
            "run",
            directory.resolve(".tenbin/shards/spec.yaml").toString(),
            "--out",
            directory.toString())
        .endsWith("--shard", "$(JOB_COMPLETION_INDEX)/2");
    // The results claim at the service's results root; the service's TLS Secret beside it.
    assertThat(container.getVolumeMounts())
        .anySatisfy(
            m -> {
              assertThat(m.getName()).isEqualTo("results");
              assertThat(m.getMountPath()).isEqualTo(folders.resultsRoot().toRealPath().toString());
            })
        .anySatisfy(m -> assertThat(m.getMountPath()).isEqualTo("/etc/tenbin/tls"));
    assertThat(job.getSpec().getTemplate().getSpec().getVolumes())
        .filteredOn(v -> v.getSecret() != null)
        .singleElement()
        .satisfies(v -> assertThat(v.getSecret().getSecretName()).isEqualTo("tenbin-tls"));
    assertThat(container.getEnv())
        .as("the service's hub Secret becomes the pods' HF_TOKEN")
        .anySatisfy(
            e -> {
              assertThat(e.getName()).isEqualTo("HF_TOKEN");
              assertThat(e.getValueFrom().getSecretKeyRef().getName()).isEqualTo("tenbin-hf");
            });

    runPod(container.getArgs(), 0);
    setStatus(job, new V1JobStatus().active(1).completedIndexes("0"));
    await(() -> seen.stream().anyMatch(s -> s.contains("1/2 shards done, 1 running")));
    assertThat(manager.get(id).state()).isEqualTo(JobManager.State.RUNNING);
    assertThat(directory.resolve("leaderboard.md")).doesNotExist();

    runPod(container.getArgs(), 1);
    setStatus(
        job,
        new V1JobStatus()
            .succeeded(2)
            .completedIndexes("0-1")
            .addConditionsItem(new V1JobCondition().type("Complete").status("True")));

    await(() -> manager.get(id).state().finished());
    JobManager.Snapshot done = manager.get(id);
    assertThat(done.state()).as(done.error() + "\n" + log).isEqualTo(JobManager.State.SUCCEEDED);
    assertThat(done.cellsDone()).isEqualTo(3).isEqualTo(done.cellsTotal());
    assertThat(directory.resolve("leaderboard.md")).content().contains("bm25");
    assertThat(directory.resolve("warehouse.duckdb")).isNotEmptyFile();
    assertThat(jobs(id)).hasSize(1);
  }

  @Test
  void aFailedJobFailsTheServiceJobNamingTheFailedShards() throws Exception {
    manager = open();
    String id = submit();
    V1Job job = awaitJob(id);
    setStatus(
        job,
        new V1JobStatus()
            .failed(2)
            .completedIndexes("0")
            .failedIndexes("1")
            .addConditionsItem(
                new V1JobCondition().type("Failed").status("True").reason("FailedIndexes")));

    await(() -> manager.get(id).state().finished());
    JobManager.Snapshot failed = manager.get(id);
    assertThat(failed.state()).isEqualTo(JobManager.State.FAILED);
    assertThat(failed.error()).contains("failed shards [1] of 2").contains("FailedIndexes");
    assertThat(manager.directory(id).resolve("leaderboard.md")).doesNotExist();
  }

  @Test
  void cancellingTheJobDeletesItsKubernetesJobInTheBackground() throws Exception {
    manager = open();
    String id = submit();
    awaitJob(id);

    manager.cancel(id);

    await(() -> manager.get(id).state().finished());
    assertThat(manager.get(id).state()).isEqualTo(JobManager.State.CANCELLED);
    assertThat(jobs(id)).isEmpty();
    assertThat(requests("DELETE"))
        .singleElement()
        .asString()
        .contains("/apis/batch/v1/namespaces/tenbin/jobs/tenbin-" + id)
        .contains("Background");
  }

  @Test
  void aRestartedServiceFollowsTheRunningJobInsteadOfCreatingASecond() throws Exception {
    manager = open();
    String id = submit();
    V1Job job = awaitJob(id);

    manager.close(); // the service stops: the Job runs on
    manager = null;
    assertThat(jobs(id)).hasSize(1);
    requests("POST"); // forget the first creation

    manager = open();
    await(() -> log.toString().contains("following the Job already there: tenbin/tenbin-" + id));
    V1Container container = job.getSpec().getTemplate().getSpec().getContainers().getFirst();
    runPod(container.getArgs(), 0);
    runPod(container.getArgs(), 1);
    setStatus(
        job,
        new V1JobStatus()
            .succeeded(2)
            .completedIndexes("0-1")
            .addConditionsItem(new V1JobCondition().type("Complete").status("True")));

    await(() -> manager.get(id).state().finished());
    assertThat(manager.get(id).state()).isEqualTo(JobManager.State.SUCCEEDED);
    assertThat(jobs(id)).hasSize(1);
    assertThat(requests("POST")).isEmpty();
  }

  private List<V1Job> jobs(String id) throws ApiException {
    return api.listNamespacedJob(NAMESPACE)
        .labelSelector("tenbin.dev/job-id=" + id)
        .execute()
        .getItems();
  }

  private V1Job awaitJob(String id) throws Exception {
    await(() -> !list(id).isEmpty());
    return list(id).getFirst();
  }

  private List<V1Job> list(String id) {
    try {
      return jobs(id);
    } catch (ApiException e) {
      return List.of();
    }
  }

  /** The paths and bodies of the requests of {@code method} the API server got since last asked. */
  private List<String> requests(String method) throws InterruptedException {
    List<String> found = new ArrayList<>();
    for (RecordedRequest request = server.takeRequest(1, TimeUnit.SECONDS);
        request != null;
        request = server.takeRequest(100, TimeUnit.MILLISECONDS)) {
      if (request.getMethod().equals(method)) {
        found.add(request.getPath() + " " + request.getUtf8Body());
      }
    }
    return found;
  }

  private void setStatus(V1Job job, V1JobStatus status) throws ApiException {
    String name = job.getMetadata().getName();
    V1Job current = api.readNamespacedJob(name, NAMESPACE).execute();
    current.setStatus(status);
    api.replaceNamespacedJobStatus(name, NAMESPACE, current).execute();
  }

  private static void runPod(List<String> podArgs, int index) {
    String[] args =
        podArgs.stream()
            .map(a -> a.replace("$(JOB_COMPLETION_INDEX)", Integer.toString(index)))
            .toArray(String[]::new);
    CliRunner pod = CliRunner.run(args);
    assertThat(pod.exitCode()).as(pod.err()).isZero();
  }

  private static String read(Path file) {
    try {
      return Files.readString(file);
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  private void await(BooleanSupplier condition) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
    while (!condition.getAsBoolean()) {
      assertThat(System.nanoTime()).as("waited too long; log:\n" + log).isLessThan(deadline);
      Thread.sleep(20);
    }
  }
}
