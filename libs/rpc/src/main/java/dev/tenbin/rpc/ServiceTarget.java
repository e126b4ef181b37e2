package dev.tenbin.rpc;

import dev.tenbin.core.InvalidInputException;
import java.time.Duration;
import java.util.regex.Pattern;

/**
 * Where a client sends its calls, as an endpoint flag gives it, and the channel policy that goes
 * with it; the one place that decides how a client spreads calls over a service's replicas.
 *
 * <ul>
 *   <li>{@code host:port} (or {@code [ipv6]:port}): one address, one connection, as a ClusterIP
 *       Service or a single server gives it ({@code pick_first}).
 *   <li>{@code dns:///host:port}: every address the name resolves to (a Kubernetes headless
 *       Service: one A record per ready pod), a connection to each, calls spread over them with
 *       {@code round_robin}. The name is resolved again when a connection closes (a server's {@code
 *       --max-connection-age-seconds}, a pod that went away) and when every address fails, so new
 *       replicas get calls and removed ones stop getting them.
 * </ul>
 *
 * <p>Both kinds send keepalive pings every {@link #KEEPALIVE_TIME} while a call is open, dropping a
 * connection whose ping is not answered within {@link #KEEPALIVE_TIMEOUT}, and none while idle: the
 * servers permit a ping every {@link ServingLimits#PERMIT_KEEPALIVE_TIME} and refuse pings without
 * calls, so the client must ping less often than that and never without calls.
 *
 * @param scheme the name resolver's scheme ({@code "dns"}, or another registered with {@link
 *     io.grpc.NameResolverRegistry}, as tests do), or null for a direct address
 * @param address the host (or name to resolve) and port
 */
public record ServiceTarget(String scheme, HostPort address) {
  /** How often a channel pings a connection that has a call open and no traffic. */
  public static final Duration KEEPALIVE_TIME = Duration.ofSeconds(60);

  /** How long an unanswered ping waits before the connection is dropped. */
  public static final Duration KEEPALIVE_TIMEOUT = Duration.ofSeconds(20);

  /** The load-balancing policy of resolved targets. */
  public static final String BALANCED_POLICY = "round_robin";

  private static final String DNS = "dns";
  private static final Pattern SCHEME = Pattern.compile("[a-z][a-z0-9+.-]*");

  public ServiceTarget {
    if (address == null) {
      throw new IllegalArgumentException("a service target needs an address");
    }
    if (scheme != null && !SCHEME.matcher(scheme).matches()) {
      throw new IllegalArgumentException("not a name resolver scheme: '" + scheme + "'");
    }
  }

  /** A direct address: one connection, as before balancing existed. */
  public static ServiceTarget direct(String host, int port) {
    return new ServiceTarget(null, new HostPort(host, port));
  }

  /** {@code dns:///host:port}: every address of the name, calls spread with round_robin. */
  public static ServiceTarget dns(String host, int port) {
    return new ServiceTarget(DNS, new HostPort(host, port));
  }

  /**
   * Parses {@code value} given for {@code flag}: {@code host:port}, {@code [ipv6]:port}, or {@code
   * dns:///host:port}. Any other scheme, an authority ({@code dns://8.8.8.8/...}) or a path is an
   * {@link InvalidInputException} naming the flag.
   */
  public static ServiceTarget parse(String flag, String value) {
    String text = value == null ? "" : value.trim();
    String prefix = DNS + ":///";
    if (text.regionMatches(true, 0, prefix, 0, prefix.length())) {
      return new ServiceTarget(DNS, HostPort.parse(flag, text.substring(prefix.length())));
    }
    if (text.contains("://")) {
      throw new InvalidInputException(
          flag,
          flag
              + " must be HOST:PORT or dns:///HOST:PORT (no other scheme, no DNS server), got '"
              + text
              + "'");
    }
    return new ServiceTarget(null, HostPort.parse(flag, text));
  }

  /** Whether calls are spread over every address the name resolves to. */
  public boolean balanced() {
    return scheme != null;
  }

  /** The target string a channel builder takes ({@code dns:///host:port}) for balanced targets. */
  String channelTarget() {
    return scheme + ":///" + address;
  }

  /** As the flag gives it: parses back to the same target. */
  @Override
  public String toString() {
    return balanced() ? channelTarget() : address.toString();
  }
}
