package dev.tenbin.rpc;

import dev.tenbin.core.InvalidInputException;

/**
 * A server address as a flag gives it: {@code host:port}, {@code [ipv6]:port}. The one parser of
 * every endpoint option ({@code --endpoint}, {@code --index-endpoint}, {@code --encoder-endpoint},
 * {@code --rerank-endpoint}); a malformed value is an {@link InvalidInputException} naming the
 * flag.
 *
 * @param host a name or an address; an IPv6 literal without brackets
 * @param port 1..65535
 */
public record HostPort(String host, int port) {
  public HostPort {
    if (host == null || host.isBlank()) {
      throw new IllegalArgumentException("host must not be blank");
    }
    if (port < 1 || port > 65535) {
      throw new IllegalArgumentException("port must be within 1..65535, got " + port);
    }
  }

  /**
   * Parses {@code value} given for {@code flag}: {@code host:port}, or {@code [address]:port} for
   * an IPv6 address. No scheme, no path.
   */
  public static HostPort parse(String flag, String value) {
    if (value == null || value.isBlank()) {
      throw invalid(flag, value, "must be HOST:PORT");
    }
    String text = value.trim();
    if (text.contains("://") || text.contains("/")) {
      throw invalid(flag, value, "must be HOST:PORT without a scheme or path");
    }
    String host;
    String port;
    if (text.startsWith("[")) {
      int close = text.indexOf(']');
      if (close < 0) {
        throw invalid(
            flag, value, "has '[' without ']' (an IPv6 address is written [ADDRESS]:PORT)");
      }
      host = text.substring(1, close);
      if (host.isEmpty() || !host.contains(":")) {
        throw invalid(flag, value, "needs an IPv6 address inside [ ]");
      }
      String rest = text.substring(close + 1);
      if (!rest.startsWith(":")) {
        throw invalid(flag, value, "is missing its port ([ADDRESS]:PORT)");
      }
      port = rest.substring(1);
    } else {
      int colon = text.indexOf(':');
      if (colon < 0) {
        throw invalid(flag, value, "is missing its port (HOST:PORT)");
      }
      if (text.indexOf(':', colon + 1) >= 0) {
        throw invalid(flag, value, "has several ':' (an IPv6 address is written [ADDRESS]:PORT)");
      }
      host = text.substring(0, colon);
      port = text.substring(colon + 1);
      if (host.isEmpty()) {
        throw invalid(flag, value, "is missing its host (HOST:PORT)");
      }
    }
    if (host.chars().anyMatch(Character::isWhitespace)) {
      throw invalid(flag, value, "has a space in its host");
    }
    if (port.isEmpty()) {
      throw invalid(flag, value, "is missing its port (HOST:PORT)");
    }
    int number;
    try {
      number =
          port.chars().allMatch(c -> c >= '0' && c <= '9') && port.length() <= 5
              ? Integer.parseInt(port)
              : -1;
    } catch (NumberFormatException e) {
      number = -1;
    }
    if (number < 1 || number > 65535) {
      throw invalid(flag, value, "needs a port within 1..65535");
    }
    return new HostPort(host, number);
  }

  private static InvalidInputException invalid(String flag, String value, String problem) {
    return new InvalidInputException(
        flag, flag + " " + problem + ", got '" + (value == null ? "" : value) + "'");
  }

  /** {@code host:port}, with brackets around an IPv6 address, so it parses back to the same. */
  @Override
  public String toString() {
    return (host.contains(":") ? "[" + host + "]" : host) + ":" + port;
  }
}
