package dev.tenbin.k8s;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Defect 2: values.schema.json refused nothing below the top level, so `tls.enable=true
 * auth.token.enable=true` rendered plaintext without tokens and `encoder.replica=3` was ignored,
 * both with exit 0. Every object of the schema now refuses keys it does not list; types, ranges and
 * fixed sets are checked, and templates/validate.yaml checks what JSON schema cannot (one value
 * against another). Each failure names the offending key.
 */
class ValuesSchemaTest {
  @Test
  void aTypoAtTopLevelIsRefusedNamingTheKey() {
    assertThat(Charts.failure("metricPort: 9000"))
        .contains("(root)")
        .contains("Additional property metricPort is not allowed");
  }

  @Test
  void aTypoTwoLevelsDeepIsRefusedNamingTheKey() {
    assertThat(Charts.failure("encoder:\n  gpu:\n    enabeld: true\n"))
        .contains("encoder.gpu: Additional property enabeld is not allowed");
    assertThat(Charts.failure("tls:\n  certManager:\n    issuerRef:\n      nmae: ca\n"))
        .contains("tls.certManager.issuerRef: Additional property nmae is not allowed");
  }

  @Test
  void aWrongTypeIsRefusedNamingTheKey() {
    assertThat(Charts.failure("encoder:\n  replicas: three\n"))
        .contains("encoder.replicas: Invalid type. Expected: integer, given: string");
    assertThat(Charts.failure("tls:\n  enabled: \"yes\"\n"))
        .contains("tls.enabled: Invalid type. Expected: boolean, given: string");
  }

  @Test
  void anOutOfRangeNumberIsRefusedNamingTheKey() {
    assertThat(Charts.failure("rerank:\n  port: 70000\n"))
        .contains("rerank.port: Must be less than or equal to 65535");
    assertThat(Charts.failure("index:\n  replicas: 0\n"))
        .contains("index.replicas: Must be greater than or equal to 1");
    assertThat(
            Charts.failure("encoder:\n  autoscaling:\n    targetCPUUtilizationPercentage: 150\n"))
        .contains("encoder.autoscaling.targetCPUUtilizationPercentage");
  }

  @Test
  void theMisspeltKeysThatUsedToRenderPlaintextAreRefused() {
    assertThat(Charts.failure("tls:\n  enable: true\nauth:\n  token:\n    enable: true\n"))
        .contains("tls: Additional property enable is not allowed")
        .contains("auth.token: Additional property enable is not allowed");
    assertThat(Charts.failure("encoder:\n  replica: 3\n"))
        .contains("encoder: Additional property replica is not allowed");
  }

  @Test
  void aValueOutsideAFixedSetIsRefused() {
    assertThat(Charts.failure("image:\n  pullPolicy: Sometimes\n")).contains("image.pullPolicy");
    assertThat(Charts.failure("encoder:\n  models:\n    cache:\n      type: shared\n"))
        .contains("encoder.models.cache.type");
    assertThat(Charts.failure("tls:\n  certManager:\n    issuerRef:\n      kind: Vault\n"))
        .contains("tls.certManager.issuerRef.kind");
  }

  @Test
  void minReplicasAboveMaxReplicasIsRefused() {
    assertThat(Charts.failure("rerank:\n  autoscaling:\n    minReplicas: 5\n    maxReplicas: 2\n"))
        .contains(
            "rerank.autoscaling.minReplicas (5) must not exceed rerank.autoscaling.maxReplicas (2)");
  }

  @Test
  void aTokenWithoutTlsIsRefusedRatherThanRenderedUnusable() {
    assertThat(Charts.failure("auth:\n  token:\n    enabled: true\n    value: 0123456789abcdef\n"))
        .contains("auth.token.enabled needs tls.enabled");
    assertThat(
            Charts.failure(
                "tls: {enabled: true, existingSecret: s}\nauth:\n  token:\n    enabled: true\n    value: short\n"))
        .as("the servers refuse tokens under 16 characters")
        .contains("auth.token.value: Does not match pattern");
  }

  /** Objects passed to Kubernetes as they are: the API server checks them. */
  static final Set<String> PASS_THROUGH =
      Set.of(
          "global",
          "resources",
          "evaluationResources",
          "affinity",
          "podSecurityContext",
          "securityContext",
          "podSelector",
          "namespaceSelector",
          "ipBlock");

  /** Arrays of Kubernetes objects. */
  static final Set<String> OBJECT_LISTS =
      Set.of(
          "tolerations",
          "extraEnv",
          "extraVolumes",
          "extraVolumeMounts",
          "topologySpreadConstraints");

  /** Maps keyed by names the user chooses (labels, env, files), values typed. */
  static final Set<String> MAPS =
      Set.of(
          "env",
          "podResources",
          "taskSets",
          "nodeSelector",
          "annotations",
          "labels",
          "podAnnotations",
          "podLabels",
          "namespaceLabels",
          "controllerNamespaceSelector",
          "clientNamespaces[]");

  @Test
  void everyObjectOfTheSchemaRefusesUnknownKeysButKubernetesObjectsAndMaps() throws IOException {
    JsonNode schema =
        new ObjectMapper().readTree(Charts.CHART.resolve("values.schema.json").toFile());
    List<String> open = new ArrayList<>();
    List<String> checked = new ArrayList<>();
    walk(schema, "(root)", "", open, checked);
    assertThat(open).as("objects that accept any key").isEmpty();
    assertThat(checked)
        .as("nested objects checked")
        .contains(
            "(root)",
            "tls.certManager",
            "tls.certManager.issuerRef",
            "encoder.gpu",
            "encoder.models.persistence",
            "encoder.models.cache",
            "encoder.http.ingress",
            "encoder.autoscaling.queueDepth",
            "eval.executor.kubernetes.results",
            "serviceAccount",
            "runJob",
            "imagePullSecrets[]");
  }

  private static void walk(
      JsonNode node, String path, String key, List<String> open, List<String> checked) {
    boolean object = "object".equals(node.path("type").asText()) || node.has("properties");
    if (object) {
      JsonNode additional = node.get("additionalProperties");
      if (PASS_THROUGH.contains(key)
          || (OBJECT_LISTS.contains(key.replace("[]", "")) && key.endsWith("[]"))) {
        // free-form on purpose
      } else if (MAPS.contains(key)) {
        if (additional == null || !additional.isObject()) {
          open.add(path + " (a map without a type for its values)");
        }
      } else if (additional == null || !additional.isBoolean() || additional.asBoolean()) {
        open.add(path);
      } else {
        checked.add(path);
      }
    }
    node.path("properties")
        .properties()
        .forEach(
            e ->
                walk(
                    e.getValue(),
                    path.equals("(root)") ? e.getKey() : path + "." + e.getKey(),
                    e.getKey(),
                    open,
                    checked));
    if (node.has("items")) {
      walk(node.get("items"), path + "[]", key + "[]", open, checked);
    }
    for (String combinator : List.of("oneOf", "anyOf", "allOf")) {
      node.path(combinator).forEach(sub -> walk(sub, path, key, open, checked));
    }
  }

  @Test
  void valuesYamlGivesEveryKeyTheSchemaKnows() throws IOException {
    JsonNode schema =
        new ObjectMapper().readTree(Charts.CHART.resolve("values.schema.json").toFile());
    JsonNode values = new YAMLMapper().readTree(Charts.CHART.resolve("values.yaml").toFile());
    List<String> missing = new ArrayList<>();
    documented(schema, values, "", missing);
    assertThat(missing).as("schema keys without a default in values.yaml").isEmpty();
  }

  private static void documented(
      JsonNode schema, JsonNode values, String path, List<String> missing) {
    if (!schema.path("additionalProperties").isBoolean()) {
      return;
    }
    for (Map.Entry<String, JsonNode> e : schema.path("properties").properties()) {
      String key = path.isEmpty() ? e.getKey() : path + "." + e.getKey();
      if (key.equals("global")) {
        continue;
      }
      if (!values.has(e.getKey())) {
        missing.add(key);
      } else {
        documented(e.getValue(), values.get(e.getKey()), key, missing);
      }
    }
  }
}
