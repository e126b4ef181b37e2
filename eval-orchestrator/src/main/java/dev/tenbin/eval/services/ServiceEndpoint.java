package dev.tenbin.eval.services;

import dev.tenbin.core.InvalidInputException;
import dev.tenbin.rpc.ClientSecurity;

/**
 * A remote service address given as {@code host:port}, and how to reach it (TLS, token; plaintext
 * unless told otherwise).
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

  public static ServiceEndpoint parse(String option, String value) {
    int colon = value == null ? -1 : value.lastIndexOf(':');
    if (colon <= 0 || colon == value.length() - 1) {
      throw new InvalidInputException(option, option + " must be host:port, got '" + value + "'");
    }
    try {
      int port = Integer.parseInt(value.substring(colon + 1));
      if (port < 1 || port > 65535) {
        throw new NumberFormatException();
      }
      return new ServiceEndpoint(value.substring(0, colon), port);
    } catch (NumberFormatException e) {
      throw new InvalidInputException(
          option, option + " needs a port within 1..65535, got '" + value + "'");
    }
  }

  @Override
  public String toString() {
    return host + ":" + port;
  }
}
