package dev.tenbin.eval.services;

import dev.tenbin.rpc.ClientSecurity;
import dev.tenbin.rpc.HostPort;

/**
 * A remote service address given as {@code host:port} (or {@code [ipv6]:port}), and how to reach it
 * (TLS, token; plaintext unless told otherwise).
 */
public record ServiceEndpoint(String host, int port, ClientSecurity security) {
  public ServiceEndpoint {
    if (security == null) {
      security = ClientSecurity.plaintext();
    }
  }

  public ServiceEndpoint(String host, int port) {
    this(host, port, null);
  }

  /** The same address reached with {@code newSecurity}. */
  public ServiceEndpoint withSecurity(ClientSecurity newSecurity) {
    return new ServiceEndpoint(host, port, newSecurity);
  }

  /**
   * Parses {@code value} given for {@code option} with the one endpoint parser, {@link HostPort}.
   */
  public static ServiceEndpoint parse(String option, String value) {
    HostPort address = HostPort.parse(option, value);
    return new ServiceEndpoint(address.host(), address.port());
  }

  @Override
  public String toString() {
    return new HostPort(host, port).toString();
  }
}
