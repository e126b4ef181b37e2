package dev.tenbin.eval.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tenbin.eval.shard.kubernetes.IndexedJobSettings;
import dev.tenbin.eval.shard.kubernetes.KubernetesExecutor;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.http.RecordedRequest;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.apis.BatchV1Api;
import io.kubernetes.client.openapi.models.V1Container;
import io.kubernetes.client.openapi.models.V1Job;
import io.kubernetes.client.openapi.models.V1JobCondition;
import io.kubernetes.client.openapi.models.V1JobSpec;
import io.kubernetes.client.openapi.models.V1JobStatus;
import io.kubernetes.client.openapi.models.V1PodFailurePolicyRule;
import io.kubernetes.client.openapi.models.V1PodSpec;
import io.kubernetes.client.util.Config;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code tenbin run --executor kubernetes} against a loopback API server (fabric8's mock in CRUD
 * mode), with this test as the Job controller: it reads the Indexed Job the executor created, runs
 * each index's pod command in-process and writes the Job's status (completedIndexes, failedIndexes,
 * failed pods, conditions) as Kubernetes would. No real cluster, kubelet or pod is involved.
 */
class KubernetesExecutorTest {
  private static final String NAMESPACE = "tenbin";
  private static final String NAME = "tenbin-test-job";

  @TempDir Path tmp;
  private KubernetesMockServer server;
  private BatchV1Api api;
  private Path kubeconfig;
  private Path spec;
  private Path models;

  @BeforeEach
  void start() throws Exception {
    server = MockKubernetes.crudServer();
    kubeconfig = tmp.resolve("kubeconfig");
    Files.writeString(
        kubeconfig,
        """
        apiVersion: v1
        kind: Config
        clusters:
          - name: mock
            cluster: {server: "%s"}
        users:
          - name: tester
            user: {}
        contexts:
          - name: mock
            context: {cluster: mock, user: tester, namespace: %s}
        current-context: mock
        """
            .formatted(server.url("/").replaceAll("/$", ""), NAMESPACE));
    ApiClient client = Config.fromConfig(kubeconfig.toString());
    api = new BatchV1Api(client);
    TinyJob.write(tmp);
    models = TinyJob.models(tmp);
    spec = tmp.resolve("job.yaml");
    Files.writeString(
        spec,
        """
        name: cluster-job
        task_sets: [tasks.yaml]
        retrievers:
          - bm25
          - {retriever: dense:tiny-dense, variants: [base, int8]}
        """);
  }

  @AfterEach
  void stop() {
    server.destroy();
  }

  /** The command line of this process, its stderr readable while it runs. */
  private record Running(CompletableFuture<Integer> exit, StringWriter err, StringWriter out) {}

  private Running submit(String... more) {
    List<String> args =
        new ArrayList<>(
            List.of(
                "run",
                spec.toString(),
                "--out",
                tmp.resolve("out").toString(),
                "--models-dir",
                models.toString(),
                "--cache-dir",
                tmp.resolve("cache").toString(),
                "--executor",
                "kubernetes",
                "--namespace",
                NAMESPACE,
                "--parallelism",
                "2",
                "--image",
                "registry.example/tenbin:test",
                "--results-pvc",
                "tenbin-results",
                "--results-root",
                tmp.toString(),
                "--pod-results-dir",
                tmp.toString(),
                "--job-name",
                NAME,
                "--pod-hub-secret",
                "hf-token",
                "--pod-hub-endpoint",
                "http://hub-mirror.internal",
                "--kubeconfig",
                kubeconfig.toString(),
                "--poll-seconds",
                "0.05"));
    args.addAll(List.of(more));
    args.addAll(
        List.of(
            "--",
            "--models-dir",
            models.toString(),
            "--cache-dir",
            tmp.resolve("pod-cache").toString()));
    StringWriter err = new StringWriter();
    StringWriter out = new StringWriter();
    var cli = TenbinCli.commandLine();
    cli.setErr(new PrintWriter(err, true));
    cli.setOut(new PrintWriter(out, true));
    return new Running(
        CompletableFuture.supplyAsync(() -> cli.execute(args.toArray(String[]::new))), err, out);
  }

  @Test
  void anIndexedJobRunsEveryShardRetriesAFailedPodAndTheMergeWritesLeaderboards() throws Exception {
    Running run = submit();
    V1Job job = awaitJob(run);

    V1JobSpec created = job.getSpec();
    assertThat(created.getCompletionMode()).isEqualTo("Indexed");
    assertThat(created.getCompletions()).isEqualTo(2);
    assertThat(created.getParallelism()).isEqualTo(2);
    assertThat(created.getBackoffLimitPerIndex()).isEqualTo(1);
    assertThat(created.getTtlSecondsAfterFinished()).isEqualTo(86400);
    List<V1PodFailurePolicyRule> rules = created.getPodFailurePolicy().getRules();
    assertThat(rules)
        .extracting(V1PodFailurePolicyRule::getAction)
        .containsExactly("FailJob", "Ignore");
    assertThat(rules.get(0).getOnExitCodes().getValues()).containsExactly(2);
    assertThat(rules.get(0).getOnExitCodes().getOperator()).isEqualTo("In");
    assertThat(rules.get(1).getOnPodConditions().getFirst().getType())
        .isEqualTo("DisruptionTarget");
    V1PodSpec pod = created.getTemplate().getSpec();
    assertThat(pod.getRestartPolicy()).isEqualTo("Never");
    assertThat(pod.getSecurityContext().getRunAsNonRoot()).isTrue();
    assertThat(pod.getSecurityContext().getRunAsUser()).isEqualTo(10001L);
    assertThat(pod.getVolumes())
        .anySatisfy(
            v ->
                assertThat(v.getPersistentVolumeClaim().getClaimName())
                    .isEqualTo("tenbin-results"));
    V1Container container = pod.getContainers().getFirst();
    assertThat(container.getImage()).isEqualTo("registry.example/tenbin:test");
    assertThat(container.getSecurityContext().getReadOnlyRootFilesystem()).isTrue();
    assertThat(container.getSecurityContext().getAllowPrivilegeEscalation()).isFalse();
    assertThat(container.getSecurityContext().getCapabilities().getDrop()).containsExactly("ALL");
    assertThat(container.getVolumeMounts())
        .anySatisfy(
            m -> {
              assertThat(m.getName()).isEqualTo("results");
              assertThat(m.getMountPath()).isEqualTo(tmp.toString());
            });
    assertThat(container.getArgs())
        .startsWith("run", spec.toString(), "--out", tmp.resolve("out").toString())
        .endsWith("--shard", "$(JOB_COMPLETION_INDEX)/2");
    assertThat(container.getEnv())
        .anySatisfy(
            e ->
                assertThat(e.getValueFrom().getFieldRef().getFieldPath())
                    .contains("batch.kubernetes.io/job-completion-index"));
    assertThat(container.getEnv())
        .as("the hub token comes from the Secret, never as a value in the Job")
        .anySatisfy(
            e -> {
              assertThat(e.getName()).isEqualTo("HF_TOKEN");
              assertThat(e.getValue()).isNull();
              assertThat(e.getValueFrom().getSecretKeyRef().getName()).isEqualTo("hf-token");
              assertThat(e.getValueFrom().getSecretKeyRef().getKey()).isEqualTo("token");
            })
        .anySatisfy(
            e -> {
              assertThat(e.getName()).isEqualTo("HF_ENDPOINT");
              assertThat(e.getValue()).isEqualTo("http://hub-mirror.internal");
            });

    // Index 0 runs; index 1's first pod fails (Kubernetes starts it again: it is not in
    // failedIndexes).
    assertThat(runPod(container.getArgs(), 0)).isZero();
    setStatus(new V1JobStatus().active(1).failed(1).completedIndexes("0"));
    await(() -> run.err().toString().contains("1 pod(s) failed"), run);
    assertThat(run.err().toString()).contains("shard 0/2 succeeded").doesNotContain("merge:");
    assertThat(tmp.resolve("out").resolve("leaderboard.md")).doesNotExist();

    assertThat(runPod(container.getArgs(), 1)).isZero();
    setStatus(
        new V1JobStatus()
            .active(0)
            .failed(1)
            .succeeded(2)
            .completedIndexes("0-1")
            .addConditionsItem(new V1JobCondition().type("Complete").status("True")));

    assertThat(run.exit().get(2, TimeUnit.MINUTES)).as(run.err().toString()).isZero();
    assertThat(run.err().toString())
        .contains("shard 1/2 succeeded")
        .contains("tenbin: shard 0/2: 0 already stored, ")
        .contains("tenbin: shard 1/2: 0 already stored, ")
        .contains("tenbin: merge: all 3 cells stored, none computed");
    assertThat(tmp.resolve("out").resolve("leaderboard.md")).content().contains("bm25");
    assertThat(tmp.resolve("out").resolve("warehouse.duckdb")).isNotEmptyFile();
  }

  @Test
  void anIndexFailedBeyondItsRetriesFailsTheRunNamingItAndNothingIsMerged() throws Exception {
    Running run = submit();
    awaitJob(run);
    setStatus(
        new V1JobStatus()
            .failed(2)
            .completedIndexes("0")
            .failedIndexes("1")
            .addConditionsItem(
                new V1JobCondition()
                    .type("Failed")
                    .status("True")
                    .reason("FailedIndexes")
                    .message("Job has failed indexes")));

    assertThat(run.exit().get(2, TimeUnit.MINUTES)).isEqualTo(RunCommand.EXIT_INCOMPLETE);
    assertThat(run.err().toString())
        .contains("shard 1/2 failed after 1 retries")
        .contains(
            "not merged: the Job failed; failed shards [1] (FailedIndexes: Job has failed indexes)");
    assertThat(tmp.resolve("out").resolve("leaderboard.md")).doesNotExist();
  }

  @Test
  void cancellingDeletesTheJobWithBackgroundPropagation() throws Exception {
    IndexedJobSettings settings =
        new IndexedJobSettings(
            NAMESPACE,
            NAME,
            "tenbin:test",
            3,
            3,
            1,
            600,
            "tenbin-results",
            "/results",
            List.of("/results/job.yaml", "--out", "/results/out"),
            Map.of("cpu", "2"),
            "",
            Map.of(),
            List.of(),
            IndexedJobSettings.PodHub.NONE);
    StringWriter err = new StringWriter();
    KubernetesExecutor executor =
        new KubernetesExecutor(api, settings, new PrintWriter(err, true), Duration.ofMillis(20));
    AtomicBoolean cancelled = new AtomicBoolean();
    CompletableFuture<KubernetesExecutor.Result> result =
        CompletableFuture.supplyAsync(() -> executor.run(cancelled::get));
    await(() -> exists(), null);
    assertThat(api.readNamespacedJob(NAME, NAMESPACE).execute().getSpec().getTemplate().getSpec())
        .satisfies(
            pod ->
                assertThat(pod.getContainers().getFirst().getResources().getRequests())
                    .containsKey("cpu"));

    cancelled.set(true);

    assertThat(result.get(1, TimeUnit.MINUTES).state())
        .isEqualTo(KubernetesExecutor.State.CANCELLED);
    assertThat(exists()).isFalse();
    List<String> deletes = new ArrayList<>();
    for (RecordedRequest request = server.takeRequest(1, TimeUnit.SECONDS);
        request != null;
        request = server.takeRequest(100, TimeUnit.MILLISECONDS)) {
      if (request.getMethod().equals("DELETE")) {
        deletes.add(request.getPath() + " " + request.getUtf8Body());
      }
    }
    assertThat(deletes)
        .singleElement()
        .asString()
        .contains("/apis/batch/v1/namespaces/tenbin/jobs/" + NAME)
        .contains("Background");
    assertThat(err.toString()).contains("deleted Job tenbin/" + NAME);
  }

  @Test
  void theJobFolderMustLieOnTheSharedResultsVolume() {
    CliRunner refused =
        CliRunner.run(
            "run",
            spec.toString(),
            "--out",
            "/somewhere/else/out",
            "--models-dir",
            models.toString(),
            "--executor",
            "kubernetes",
            "--image",
            "tenbin:test",
            "--results-pvc",
            "results",
            "--results-root",
            tmp.toString(),
            "--kubeconfig",
            kubeconfig.toString());
    assertThat(refused.exitCode()).isEqualTo(TenbinCli.EXIT_USAGE);
    assertThat(refused.err()).contains("is not on the shared results volume");
    assertThatThrownBy(() -> api.readNamespacedJob(NAME, NAMESPACE).execute())
        .isInstanceOf(ApiException.class);
  }

  /**
   * Runs the pod of {@code index} in-process: its arguments with the completion index filled in.
   */
  private static int runPod(List<String> podArgs, int index) {
    String[] args =
        podArgs.stream()
            .map(a -> a.replace("$(JOB_COMPLETION_INDEX)", Integer.toString(index)))
            .toArray(String[]::new);
    CliRunner pod = CliRunner.run(args);
    assertThat(pod.exitCode()).as(pod.err()).isZero();
    return pod.exitCode();
  }

  private void setStatus(V1JobStatus status) throws ApiException {
    V1Job job = api.readNamespacedJob(NAME, NAMESPACE).execute();
    job.setStatus(status);
    api.replaceNamespacedJobStatus(NAME, NAMESPACE, job).execute();
  }

  private V1Job awaitJob(Running run) throws Exception {
    await(this::exists, run);
    return api.readNamespacedJob(NAME, NAMESPACE).execute();
  }

  private boolean exists() {
    try {
      api.readNamespacedJob(NAME, NAMESPACE).execute();
      return true;
    } catch (ApiException e) {
      return false;
    }
  }

  private static void await(BooleanSupplier condition, Running run) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
    while (!condition.getAsBoolean()) {
      if (run != null && run.exit().isDone()) {
        throw new AssertionError("the run ended early: " + run.err());
      }
      assertThat(System.nanoTime()).as("waited too long").isLessThan(deadline);
      Thread.sleep(20);
    }
  }
}
