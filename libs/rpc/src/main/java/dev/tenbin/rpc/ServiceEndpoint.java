package dev.tenbin.rpc;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.stream.Collectors;

/**
 * A remote service and how to reach it (TLS, token; plaintext unless told otherwise): one target
 * ({@code host:port}, {@code [ipv6]:port}, or {@code dns:///host:port} spread over the name's
 * replicas with round_robin), or the stable addresses of a stateful service's pods, each holding
 * its own keys (the index's collections), reached through {@link
 * ClientChannels#open(ServiceEndpoint, int, java.util.function.Function)}.
 *
 * @param targets one target, or the pods in their StatefulSet order
 * @param security how every target is reached
 */
public record ServiceEndpoint(List<ServiceTarget> targets, ClientSecurity security) {
  public ServiceEndpoint {
    if (targets == null || targets.isEmpty()) {
      throw new IllegalArgumentException("a service endpoint needs at least one target");
    }
    targets = List.copyOf(targets);
    if (targets.size() > 1 && targets.stream().anyMatch(ServiceTarget::balanced)) {
      throw new IllegalArgumentException(
          "pods are addressed one by one (host:port each), not through dns:///, got " + targets);
    }
    if (security == null) {
      security = ClientSecurity.plaintext();
    }
  }

  public ServiceEndpoint(String host, int port) {
    this(List.of(ServiceTarget.direct(host, port)), null);
  }

  /** The same targets reached with {@code newSecurity}. */
  public ServiceEndpoint withSecurity(ClientSecurity newSecurity) {
    return new ServiceEndpoint(targets, newSecurity);
  }

  /**
   * Parses {@code value} given for {@code option} with the one target parser, {@link
   * ServiceTarget}: {@code host:port}, {@code [ipv6]:port} or {@code dns:///host:port}.
   */
  public static ServiceEndpoint parse(String option, String value) {
    return new ServiceEndpoint(List.of(ServiceTarget.parse(option, value)), null);
  }

  /**
   * The pods of a stateful service given for {@code option}, each {@code host:port} (their stable
   * DNS names, {@code tenbin-index-0.tenbin-index-headless:50052}), distinct.
   */
  public static ServiceEndpoint pods(String option, List<String> values) {
    if (values == null || values.isEmpty()) {
      throw new dev.tenbin.core.InvalidInputException(option, option + " needs at least one pod");
    }
    List<ServiceTarget> pods = new ArrayList<>();
    for (String value : values) {
      HostPort pod = HostPort.parse(option, value);
      pods.add(ServiceTarget.direct(pod.host(), pod.port()));
    }
    if (new HashSet<>(pods).size() != pods.size()) {
      throw new dev.tenbin.core.InvalidInputException(
          option, option + " names a pod twice, got " + String.join(",", values));
    }
    return new ServiceEndpoint(pods, null);
  }

  /**
   * A stateful service whose replicas each hold their own keys (the index), as given: one service
   * by {@code endpointOption} ({@code host:port}; a {@code dns:///} name would spread one key's
   * calls over replicas that do not hold it) or its pods by {@code podsOption}; null when neither
   * is given. {@link IllegalArgumentException} naming the flags for both, or for a {@code dns:///}
   * endpoint.
   */
  public static ServiceEndpoint stateful(
      String endpointOption, String endpoint, String podsOption, List<String> pods) {
    boolean hasEndpoint = endpoint != null && !endpoint.isBlank();
    List<String> podList =
        pods == null ? List.of() : pods.stream().filter(p -> !p.isBlank()).toList();
    if (hasEndpoint && !podList.isEmpty()) {
      throw new IllegalArgumentException(
          "give "
              + endpointOption
              + " (one service) or "
              + podsOption
              + " (a StatefulSet's pods), not both");
    }
    if (!podList.isEmpty()) {
      return pods(podsOption, podList);
    }
    if (!hasEndpoint) {
      return null;
    }
    ServiceEndpoint one = parse(endpointOption, endpoint);
    if (one.target().balanced()) {
      throw new IllegalArgumentException(
          endpointOption
              + " must be HOST:PORT: its pods each hold their own keys, so calls cannot be spread"
              + " with dns:///; give the pods with "
              + podsOption);
    }
    return one;
  }

  /** Whether calls are placed over several pods by key rather than sent to one target. */
  public boolean placed() {
    return targets.size() > 1;
  }

  /** The one target; {@link IllegalStateException} for several pods. */
  public ServiceTarget target() {
    if (placed()) {
      throw new IllegalStateException("several pods, no single target: " + this);
    }
    return targets.getFirst();
  }

  /** The host of the one target. */
  public String host() {
    return target().address().host();
  }

  /** The port of the one target. */
  public int port() {
    return target().address().port();
  }

  /** As the flags give it: the target, or the pods separated by commas. */
  @Override
  public String toString() {
    return targets.stream().map(ServiceTarget::toString).collect(Collectors.joining(","));
  }
}
