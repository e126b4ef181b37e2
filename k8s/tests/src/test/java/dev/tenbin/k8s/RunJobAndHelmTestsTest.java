package dev.tenbin.k8s;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenbin.k8s.Manifests.Manifest;
import io.kubernetes.client.openapi.models.V1ConfigMap;
import io.kubernetes.client.openapi.models.V1Container;
import io.kubernetes.client.openapi.models.V1Job;
import io.kubernetes.client.openapi.models.V1Pod;
import io.kubernetes.client.openapi.models.V1PodSpec;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Defect 7: jobs from outside the cluster. runJob renders a ConfigMap with the spec and its task
 * sets and a Job that runs {@code tenbin job submit SPEC --out OUT --watch} against the eval
 * service; templates/tests has one `helm test` pod per service.
 */
class RunJobAndHelmTestsTest {
  private static V1Job runJob(List<Manifest> manifests) {
    return manifests.stream()
        .filter(m -> m.model() instanceof V1Job && m.name().startsWith("tb-tenbin-run-"))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no run Job in " + Charts.names(manifests)))
        .as(V1Job.class);
  }

  @Test
  void noRunJobByDefault() {
    assertThat(Charts.render("")).noneMatch(m -> m.name().contains("-run-"));
  }

  @Test
  void theRunJobSubmitsTheSpecFromItsConfigMapAndFollowsTheJobToItsEnd() {
    List<Manifest> manifests = Charts.renderCi("run-job", "");
    V1Job job = runJob(manifests);
    String name = job.getMetadata().getName();
    V1ConfigMap files = Charts.find(manifests, "ConfigMap", name).as(V1ConfigMap.class);
    assertThat(files.getData()).containsOnlyKeys("spec.yaml", "datasets.yaml");
    assertThat(files.getData().get("spec.yaml")).contains("task_sets: [datasets.yaml]");
    assertThat(files.getData().get("datasets.yaml")).contains("path: /data/xquad-en");

    V1PodSpec pod = job.getSpec().getTemplate().getSpec();
    V1Container submit = pod.getContainers().getFirst();
    assertThat(submit.getCommand()).as("the image's entrypoint, tenbin").isNullOrEmpty();
    assertThat(submit.getArgs())
        .containsExactly(
            "job",
            "submit",
            "/etc/tenbin/job/spec.yaml",
            "--out",
            "runs/" + name,
            "--watch",
            "--endpoint",
            "tb-tenbin-eval:50054",
            "--tls-ca",
            "/etc/tenbin/tls/ca.crt",
            "--auth-token-file",
            "/etc/tenbin/auth/token");
    assertThat(submit.getVolumeMounts())
        .extracting(m -> m.getName() + ":" + m.getMountPath())
        .contains(
            "job:/etc/tenbin/job", "tls:/etc/tenbin/tls", "auth:/etc/tenbin/auth", "tmp:/tmp");
    assertThat(pod.getVolumes())
        .anySatisfy(
            v ->
                assertThat(v.getConfigMap() == null ? null : v.getConfigMap().getName())
                    .isEqualTo(name));
    assertThat(pod.getRestartPolicy()).isEqualTo("Never");
    assertThat(pod.getAutomountServiceAccountToken()).isFalse();
    assertThat(pod.getImagePullSecrets()).extracting(r -> r.getName()).containsExactly("regcred");
    assertThat(job.getSpec().getTemplate().getMetadata().getLabels())
        .as("the NetworkPolicy admits it to the eval service (NetworkPolicyTest: and no other)")
        .containsEntry("tenbin.dev/eval-client", "true")
        .doesNotContainKey("tenbin.dev/client");
    assertThat(
            job.getSpec().getPodFailurePolicy().getRules().getFirst().getOnExitCodes().getValues())
        .containsExactly(2, 3);
    assertThat(submit.getSecurityContext().getReadOnlyRootFilesystem()).isTrue();
  }

  @Test
  void theRunJobIsNamedAfterItsContentSoAnotherSpecRunsAnotherJob() {
    String a =
        runJob(Charts.render("runJob:\n  enabled: true\n  spec: 'name: a'\n"))
            .getMetadata()
            .getName();
    String again =
        runJob(Charts.render("runJob:\n  enabled: true\n  spec: 'name: a'\n"))
            .getMetadata()
            .getName();
    String b =
        runJob(Charts.render("runJob:\n  enabled: true\n  spec: 'name: b'\n"))
            .getMetadata()
            .getName();
    assertThat(again).isEqualTo(a);
    assertThat(b).isNotEqualTo(a);
    V1Job mapSpec =
        runJob(
            Charts.render(
                "runJob:\n  enabled: true\n  out: runs/mine\n  spec:\n    name: c\n    task_sets: [t.yaml]\n"));
    assertThat(
            Charts.arg(
                mapSpec.getSpec().getTemplate().getSpec().getContainers().getFirst(), "--out"))
        .isEqualTo("runs/mine");
    assertThat(Charts.failure("runJob:\n  enabled: true\n")).contains("runJob.spec is required");
    assertThat(
            Charts.failure(
                "runJob:\n  enabled: true\n  spec: 'name: a'\neval:\n  enabled: false\n"))
        .contains("runJob.enabled needs eval.enabled");
  }

  @Test
  void helmTestHasOnePodPerServiceEvalThroughTenbinJobListTheOthersThroughReadyz() {
    List<Manifest> manifests = Charts.renderWithTests("default", "");
    List<V1Pod> pods =
        manifests.stream()
            .filter(m -> m.model() instanceof V1Pod)
            .map(m -> m.as(V1Pod.class))
            .toList();
    assertThat(pods)
        .extracting(p -> p.getMetadata().getName())
        .containsExactlyInAnyOrder(
            "tb-tenbin-test-encoder",
            "tb-tenbin-test-index",
            "tb-tenbin-test-rerank",
            "tb-tenbin-test-eval",
            "tb-tenbin-test-eval-web",
            "tb-tenbin-test-evaluation");
    for (V1Pod pod : pods) {
      assertThat(pod.getMetadata().getAnnotations()).containsEntry("tenbin.dev/helm-hook", "test");
      assertThat(pod.getMetadata().getLabels()).containsEntry("tenbin.dev/client", "true");
      assertThat(pod.getSpec().getRestartPolicy()).isEqualTo("Never");
      V1Container c = pod.getSpec().getContainers().getFirst();
      assertThat(c.getSecurityContext().getReadOnlyRootFilesystem()).isTrue();
      assertThat(c.getResources().getLimits()).containsKeys("cpu", "memory");
      if (pod.getMetadata().getName().endsWith("-evaluation")) {
        assertThat(c.getCommand()).as("the image's entrypoint, tenbin").isNullOrEmpty();
        assertThat(String.join(" ", c.getArgs()))
            .isEqualTo(
                "eval --dataset /opt/tenbin/samples/xquad-en --retriever bm25"
                    + " --retriever dense:bge-small-en-v1.5 --variant base"
                    + " --encoder-endpoint dns:///tb-tenbin-encoder-headless:50051"
                    + " --index-pods tb-tenbin-index-0.tb-tenbin-index-headless:50052,"
                    + "tb-tenbin-index-1.tb-tenbin-index-headless:50052"
                    + " --cache-dir /tmp/cache");
      } else if (pod.getMetadata().getName().endsWith("-eval-web")) {
        assertThat(c.getArgs())
            .containsExactly("job", "web", "/api/jobs", "--endpoint", "tb-tenbin-eval:8081");
        assertThat(pod.getSpec().getContainers()).as("no token: nothing to refuse").hasSize(1);
      } else if (pod.getMetadata().getName().endsWith("-eval")) {
        assertThat(c.getCommand()).as("the image's entrypoint, tenbin").isNullOrEmpty();
        assertThat(c.getArgs())
            .containsExactly("job", "list", "--endpoint", "tb-tenbin-eval:50054");
      } else {
        String service = pod.getMetadata().getName().replace("tb-tenbin-test-", "tb-tenbin-");
        assertThat(c.getCommand()).startsWith("/bin/bash", "-c");
        assertThat(c.getCommand().get(2))
            .contains("/dev/tcp/" + service + "/9464")
            .contains("GET /readyz");
      }
    }
    assertThat(
            Charts.find(manifests, "NetworkPolicy", "tb-tenbin-encoder")
                .tree()
                .at("/spec/ingress/1/from/0/namespaceSelector/matchLabels")
                .toString())
        .as("by default the namespace called monitoring scrapes metrics")
        .isEqualTo("{\"kubernetes.io/metadata.name\":\"monitoring\"}");
  }

  @Test
  void helmTestOfEvalUsesTheReleasesMutualTlsAndToken() {
    List<Manifest> manifests = Charts.renderWithTests("mtls-token", "");
    V1Pod eval = Charts.find(manifests, "Pod", "tb-tenbin-test-eval").as(V1Pod.class);
    assertThat(String.join(" ", eval.getSpec().getContainers().getFirst().getArgs()))
        .isEqualTo(
            "job list --endpoint tb-tenbin-eval:50054 --tls-ca /etc/tenbin/tls/ca.crt"
                + " --tls-client-cert /etc/tenbin/tls/tls.crt --tls-client-key /etc/tenbin/tls/tls.key"
                + " --auth-token-file /etc/tenbin/auth/token");
    assertThat(eval.getSpec().getVolumes())
        .extracting(v -> v.getSecret() == null ? v.getName() : v.getSecret().getSecretName())
        .contains("tb-tenbin-tls", "tenbin-token");
    V1Pod web = Charts.find(manifests, "Pod", "tb-tenbin-test-eval-web").as(V1Pod.class);
    assertThat(String.join(" ", web.getSpec().getContainers().getFirst().getArgs()))
        .isEqualTo(
            "job web /api/jobs --endpoint tb-tenbin-eval:8081 --tls-ca /etc/tenbin/tls/ca.crt"
                + " --tls-client-cert /etc/tenbin/tls/tls.crt --tls-client-key /etc/tenbin/tls/tls.key"
                + " --auth-token-file /etc/tenbin/auth/token");
    // The same request without the token must be refused (401) for the test to pass.
    V1Container withoutToken = web.getSpec().getContainers().get(1);
    assertThat(withoutToken.getCommand().get(2))
        .contains("tenbin job web /api/jobs --endpoint tb-tenbin-eval:8081 --tls-ca")
        .contains("*\"HTTP 401\"*) exit 0")
        .doesNotContain("--auth-token-file");
    assertThat(withoutToken.getVolumeMounts())
        .extracting(m -> m.getMountPath())
        .doesNotContain("/etc/tenbin/auth");
    List<Manifest> restricted =
        Charts.renderWithTests(
            "default",
            "networkPolicy:\n  metrics:\n    namespaceLabels:\n      name: prometheus\n");
    assertThat(
            Charts.find(restricted, "NetworkPolicy", "tb-tenbin-index")
                .tree()
                .at("/spec/ingress/1/from/1/podSelector/matchLabels")
                .toString())
        .as("the test pods still reach /readyz when Prometheus' namespace is named")
        .contains("\"app.kubernetes.io/component\":\"test\"");
  }

  @Test
  void helmTestsEvaluationRunsThroughTheDeployedServicesWithTheReleasesTlsTokenAndPreload() {
    List<Manifest> manifests =
        Charts.renderWithTests("mtls-token", "encoder:\n  preload: [e5-small-v2]\n");
    V1Pod pod = Charts.find(manifests, "Pod", "tb-tenbin-test-evaluation").as(V1Pod.class);
    String args = String.join(" ", pod.getSpec().getContainers().getFirst().getArgs());
    assertThat(args)
        .contains("--retriever dense:e5-small-v2")
        .contains(
            "--service-tls-ca /etc/tenbin/tls/ca.crt --service-tls-client-cert"
                + " /etc/tenbin/tls/tls.crt --service-tls-client-key /etc/tenbin/tls/tls.key"
                + " --service-auth-token-file /etc/tenbin/auth/token");
    assertThat(pod.getSpec().getVolumes())
        .extracting(v -> v.getSecret() == null ? v.getName() : v.getSecret().getSecretName())
        .contains("tb-tenbin-tls", "tenbin-token", "tmp");
    // Without an encoder the evaluation is BM25 alone; without an index there is none.
    String bm25Only =
        String.join(
            " ",
            Charts.find(
                    Charts.renderWithTests("default", "encoder:\n  enabled: false\n"),
                    "Pod",
                    "tb-tenbin-test-evaluation")
                .as(V1Pod.class)
                .getSpec()
                .getContainers()
                .getFirst()
                .getArgs());
    assertThat(bm25Only).contains("--retriever bm25").doesNotContain("dense:");
  }

  @Test
  void theNotesNameTheRunJobTheHelmTestAndTheSubmitCommand() {
    List<Manifest> manifests = Charts.renderCi("run-job", "");
    String notes = Charts.notes("run-job", "");
    assertThat(notes)
        .contains("kubectl -n tenbin logs -f job/" + runJob(manifests).getMetadata().getName())
        .contains("helm test tb -n tenbin")
        .contains(
            "tenbin job submit SPEC --out runs/NAME --watch --endpoint localhost:50054 --tls-ca ca.crt")
        .contains("--auth-token-file token");
    assertThat(Charts.notes("http-ingress", ""))
        .contains("https://tb-tenbin-encoder.tenbin.svc:8080")
        .contains("https://embeddings.example.com/v1/embeddings");
  }

  @Test
  void theNotesSayHowToDownloadAJobsResultsAndWhereTheRunJobsResultsAre() {
    List<Manifest> manifests =
        Charts.renderCi("run-job", "runJob:\n  ttlSecondsAfterFinished: 3600\n");
    V1Job job = runJob(manifests);
    assertThat(job.getSpec().getTtlSecondsAfterFinished()).isEqualTo(3600);
    assertThat(runJob(Charts.renderCi("run-job", "")).getSpec().getTtlSecondsAfterFinished())
        .as("kept by default")
        .isNull();
    String notes = Charts.notes("run-job", "runJob:\n  ttlSecondsAfterFinished: 3600\n");
    assertThat(notes)
        .contains(
            "tenbin job results JOB_ID --download runs/JOB_ID --endpoint localhost:50054"
                + " --tls-ca ca.crt --tls-server-name tb-tenbin-eval --auth-token-file token")
        .contains("tenbin job list --endpoint localhost:50054 --tls-ca ca.crt")
        .contains("Its results folder is runs/" + job.getMetadata().getName())
        .contains("deleted 3600 s after it ends");
  }

  @Test
  void theNotesSayHowToOpenTheWebUiUnderTheReleasesTlsAndToken() {
    assertThat(Charts.notes("default", ""))
        .contains("port-forward svc/tb-tenbin-eval 8081")
        .contains("open http://localhost:8081/")
        .doesNotContain("sign in with a line of the token");
    assertThat(Charts.notes("mtls-token", ""))
        .contains("open https://localhost:8081/")
        .contains("sign in with a line of the token");
    assertThat(Charts.notes("default", "eval:\n  http:\n    enabled: false\n"))
        .doesNotContain("8081");
  }

  @Test
  void theNotesWarnWhenTlsOrTheTokenIsOffAndNotWhenBothAreOn() {
    String plaintext = Charts.notes("default", "");
    assertThat(plaintext)
        .contains("WARNING: TLS is off (tls.enabled=false)")
        .contains("WARNING: no bearer token (auth.token.enabled=false)")
        .contains("tenbin.dev/encoder-client=true")
        .contains(
            "/metrics admits every pod of the namespaces labelled"
                + " kubernetes.io/metadata.name=monitoring");
    assertThat(Charts.notes("tls", ""))
        .doesNotContain("WARNING: TLS is off")
        .contains("WARNING: no bearer token");
    String secured =
        Charts.notes("mtls-token", "image:\n  repository: registry.example.com/tenbin\n");
    assertThat(secured).doesNotContain("WARNING");
    assertThat(Charts.notes("mtls-token", "networkPolicy:\n  metrics:\n    namespace: \"\"\n"))
        .contains("pods of every namespace may read /metrics");
  }
}
