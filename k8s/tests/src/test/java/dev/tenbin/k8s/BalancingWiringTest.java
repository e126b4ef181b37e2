package dev.tenbin.k8s;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenbin.k8s.Manifests.Manifest;
import io.kubernetes.client.openapi.models.V1Container;
import io.kubernetes.client.openapi.models.V1EnvVar;
import io.kubernetes.client.openapi.models.V1StatefulSet;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The chart wires client-side balancing (docs/scaling.md): the stateless services are dialled
 * through their headless Services with dns:///, their servers age connections out, and the eval and
 * rerank services reach each index pod by its stable name.
 */
class BalancingWiringTest {
  private static V1Container container(List<Manifest> manifests, String deployment) {
    return ChartRenderingTest.deployment(manifests, deployment)
        .getSpec()
        .getTemplate()
        .getSpec()
        .getContainers()
        .getFirst();
  }

  private static Map<String, String> env(V1Container container) {
    return container.getEnv().stream()
        .filter(e -> e.getValue() != null)
        .collect(Collectors.toMap(V1EnvVar::getName, V1EnvVar::getValue));
  }

  /** The value following {@code flag} in the container's args. */
  private static String arg(V1Container container, String flag) {
    List<String> args = container.getArgs();
    int at = args.indexOf(flag);
    assertThat(at).as(flag + " in " + args).isNotNegative();
    return args.get(at + 1);
  }

  @Test
  void clientsDialTheStatelessServicesThroughTheirHeadlessServicesWithDns() {
    List<Manifest> manifests = ChartRenderingTest.rendered("default");
    V1Container eval = container(manifests, "tb-tenbin-eval");
    assertThat(arg(eval, "--encoder-endpoint"))
        .isEqualTo("dns:///tb-tenbin-encoder-headless:50051");
    assertThat(arg(eval, "--rerank-endpoint")).isEqualTo("dns:///tb-tenbin-rerank-headless:50053");
    assertThat(eval.getArgs()).doesNotContain("--index-endpoint");
    V1Container rerank = container(manifests, "tb-tenbin-rerank");
    assertThat(arg(rerank, "--encoder-endpoint"))
        .isEqualTo("dns:///tb-tenbin-encoder-headless:50051");
    assertThat(manifests)
        .filteredOn(m -> m.type().endsWith("Service") && m.name().endsWith("-headless"))
        .extracting(Manifest::name)
        .contains("tb-tenbin-encoder-headless", "tb-tenbin-rerank-headless");
  }

  @Test
  void theEncoderAndRerankServersAgeConnectionsOutSoClientsResolveAgain() {
    List<Manifest> manifests = ChartRenderingTest.rendered("default");
    for (String service : List.of("tb-tenbin-encoder", "tb-tenbin-rerank")) {
      assertThat(env(container(manifests, service)))
          .containsEntry("TENBIN_MAX_CONNECTION_AGE_SECONDS", "300")
          .containsEntry("TENBIN_MAX_CONNECTION_AGE_GRACE_SECONDS", "1800");
    }
    V1StatefulSet index = index(manifests);
    assertThat(index.getSpec().getTemplate().getSpec().getContainers().getFirst().getEnv())
        .extracting(V1EnvVar::getName)
        .as("index pods are dialled one by one: nothing to re-resolve")
        .doesNotContain("TENBIN_MAX_CONNECTION_AGE_SECONDS");
  }

  @Test
  void theEvalServiceGetsEveryIndexPodByItsStableNameFollowingTheReplicas() {
    List<Manifest> manifests = ChartRenderingTest.rendered("default");
    V1StatefulSet index = index(manifests);
    int replicas = index.getSpec().getReplicas();
    List<String> expected = new ArrayList<>();
    for (int i = 0; i < replicas; i++) {
      expected.add(
          index.getMetadata().getName()
              + "-"
              + i
              + "."
              + index.getSpec().getServiceName()
              + ":50052");
    }
    assertThat(replicas).isEqualTo(2);
    assertThat(arg(container(manifests, "tb-tenbin-eval"), "--index-pods"))
        .isEqualTo(String.join(",", expected));
  }

  @Test
  void indexShardsIsTheEvalServicesDefaultShardsOfAJobsCollections() {
    assertThat(env(container(ChartRenderingTest.rendered("default"), "tb-tenbin-eval")))
        .containsEntry("TENBIN_EVAL_DEFAULT_SHARDS", "1");
    List<Manifest> sharded = Charts.render("index:\n  shards: 3\n");
    assertThat(env(container(sharded, Charts.RELEASE + "-tenbin-eval")))
        .containsEntry("TENBIN_EVAL_DEFAULT_SHARDS", "3");
    assertThat(Charts.failure("index:\n  shards: 0\n"))
        .contains("index.shards: Must be greater than or equal to 1");
    assertThat(Charts.failure("index:\n  shards: 65\n"))
        .contains("index.shards: Must be less than or equal to 64");
  }

  @Test
  void indexCollectionReplicasIsTheEvalServicesDefaultReplicasOfAJobsShards() {
    assertThat(env(container(ChartRenderingTest.rendered("default"), "tb-tenbin-eval")))
        .containsEntry("TENBIN_EVAL_DEFAULT_REPLICAS", "1");
    List<Manifest> replicated = Charts.render("index:\n  replicas: 3\n  collectionReplicas: 2\n");
    assertThat(env(container(replicated, Charts.RELEASE + "-tenbin-eval")))
        .containsEntry("TENBIN_EVAL_DEFAULT_REPLICAS", "2");
    assertThat(Charts.failure("index:\n  collectionReplicas: 0\n"))
        .contains("index.collectionReplicas: Must be greater than or equal to 1");
    assertThat(Charts.failure("index:\n  collectionReplicas: 9\n"))
        .contains("index.collectionReplicas: Must be less than or equal to 8");
  }

  @Test
  void theRerankServiceGetsTheSameIndexPodsSoCandidatesByIdComeFromThePodHoldingTheirCollection() {
    for (String values : List.of("default", "gpu")) {
      List<Manifest> manifests = ChartRenderingTest.rendered(values);
      assertThat(arg(container(manifests, "tb-tenbin-rerank"), "--index-pods"))
          .as(values)
          .isEqualTo(arg(container(manifests, "tb-tenbin-eval"), "--index-pods"));
      assertThat(container(manifests, "tb-tenbin-rerank").getArgs())
          .doesNotContain("--index-endpoint");
    }
  }

  @Test
  void withTlsTheCertificateNamesTheHeadlessServicesAndThePodsUnderThem() {
    Manifest certificate =
        Charts.renderCi("gpu", "").stream()
            .filter(m -> m.type().endsWith("Certificate"))
            .findFirst()
            .orElseThrow();
    List<String> names = new ArrayList<>();
    certificate.tree().at("/spec/dnsNames").forEach(n -> names.add(n.asText()));
    assertThat(names)
        .contains(
            "tb-tenbin-encoder-headless",
            "tb-tenbin-rerank-headless",
            "*.tb-tenbin-index-headless",
            "tb-tenbin-eval");
    for (String service : List.of("encoder", "index", "rerank", "eval")) {
      assertThat(names)
          .as("clients that dial the fully qualified names verify them")
          .contains(
              "tb-tenbin-" + service + ".tenbin.svc",
              "tb-tenbin-" + service + ".tenbin.svc.cluster.local",
              "*.tb-tenbin-" + service + "-headless.tenbin.svc.cluster.local");
    }
  }

  private static V1StatefulSet index(List<Manifest> manifests) {
    return manifests.stream()
        .filter(m -> m.model() instanceof V1StatefulSet)
        .findFirst()
        .orElseThrow()
        .as(V1StatefulSet.class);
  }
}
