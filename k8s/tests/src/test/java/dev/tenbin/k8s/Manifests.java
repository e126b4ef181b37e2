package dev.tenbin.k8s;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import io.kubernetes.client.openapi.JSON;
import io.kubernetes.client.openapi.models.V1ConfigMap;
import io.kubernetes.client.openapi.models.V1Deployment;
import io.kubernetes.client.openapi.models.V1Ingress;
import io.kubernetes.client.openapi.models.V1Job;
import io.kubernetes.client.openapi.models.V1NetworkPolicy;
import io.kubernetes.client.openapi.models.V1PersistentVolumeClaim;
import io.kubernetes.client.openapi.models.V1Pod;
import io.kubernetes.client.openapi.models.V1PodDisruptionBudget;
import io.kubernetes.client.openapi.models.V1Secret;
import io.kubernetes.client.openapi.models.V1Service;
import io.kubernetes.client.openapi.models.V1StatefulSet;
import io.kubernetes.client.openapi.models.V2HorizontalPodAutoscaler;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Rendered manifests parsed into the official Kubernetes client's models. Deserialization is
 * strict: the generated models reject a field their API version does not define, so a typo or a
 * field in the wrong place fails here as it would fail {@code kubectl apply --validate=strict}.
 * Custom resources (ServiceMonitor, cert-manager Certificate) have no model in the client; they are
 * kept as trees.
 */
final class Manifests {
  private static final ObjectMapper YAML = new YAMLMapper();
  private static final ObjectMapper JSON_MAPPER = new JsonMapper();

  static final Map<String, Class<?>> MODELS =
      Map.ofEntries(
          Map.entry("apps/v1/Deployment", V1Deployment.class),
          Map.entry("apps/v1/StatefulSet", V1StatefulSet.class),
          Map.entry("v1/Service", V1Service.class),
          Map.entry("v1/Secret", V1Secret.class),
          Map.entry("v1/ConfigMap", V1ConfigMap.class),
          Map.entry("v1/Pod", V1Pod.class),
          Map.entry("batch/v1/Job", V1Job.class),
          Map.entry("networking.k8s.io/v1/Ingress", V1Ingress.class),
          Map.entry("v1/PersistentVolumeClaim", V1PersistentVolumeClaim.class),
          Map.entry("autoscaling/v2/HorizontalPodAutoscaler", V2HorizontalPodAutoscaler.class),
          Map.entry("policy/v1/PodDisruptionBudget", V1PodDisruptionBudget.class),
          Map.entry("networking.k8s.io/v1/NetworkPolicy", V1NetworkPolicy.class),
          Map.entry(
              "v1/ServiceAccount", io.kubernetes.client.openapi.models.V1ServiceAccount.class),
          Map.entry(
              "rbac.authorization.k8s.io/v1/Role",
              io.kubernetes.client.openapi.models.V1Role.class),
          Map.entry(
              "rbac.authorization.k8s.io/v1/RoleBinding",
              io.kubernetes.client.openapi.models.V1RoleBinding.class));

  static final List<String> CUSTOM_RESOURCES =
      List.of(
          "monitoring.coreos.com/v1/ServiceMonitor",
          "monitoring.coreos.com/v1/PrometheusRule",
          "cert-manager.io/v1/Certificate");

  /** One rendered object: its tree, and its typed model (null for a custom resource). */
  record Manifest(String type, String name, JsonNode tree, Object model) {
    <T> T as(Class<T> type) {
      return type.cast(model);
    }
  }

  private Manifests() {}

  /**
   * Parses a multi-document YAML stream; an object of an unknown type or an unknown field throws.
   */
  static List<Manifest> parse(String yaml) {
    List<Manifest> out = new ArrayList<>();
    try (var parser = new YAMLFactory().createParser(yaml)) {
      var docs = YAML.readValues(parser, JsonNode.class);
      while (docs.hasNext()) {
        JsonNode tree = docs.next();
        if (tree == null || tree.isNull() || tree.isMissingNode() || tree.isEmpty()) {
          continue;
        }
        String type = tree.path("apiVersion").asText() + "/" + tree.path("kind").asText();
        String name = tree.path("metadata").path("name").asText();
        Class<?> model = MODELS.get(type);
        if (model == null) {
          if (!CUSTOM_RESOURCES.contains(type)) {
            throw new IllegalArgumentException("no schema for " + type + " " + name);
          }
          out.add(new Manifest(type, name, tree, null));
          continue;
        }
        out.add(
            new Manifest(type, name, tree, strict(JSON_MAPPER.writeValueAsString(tree), model)));
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out;
  }

  /** Deserializes into the client's model; the model's validator rejects unknown fields. */
  static <T> T strict(String json, Class<T> model) {
    return JSON.deserialize(json, model);
  }
}
