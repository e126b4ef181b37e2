package dev.tenbin.rpc;

import java.time.Duration;

/**
 * Network settings every Tenbin server shares; each service's own config record holds one.
 *
 * @param host address to bind (127.0.0.1 unless told otherwise)
 * @param port gRPC port; 0 picks a free one
 * @param metricsPort Prometheus HTTP port; 0 picks a free one, negative disables the endpoint
 * @param maxMessageBytes largest inbound message accepted
 * @param shutdownGrace how long in-flight calls may run on after SIGTERM
 * @param security TLS, mutual TLS and bearer tokens
 * @param limits handler threads, admitted calls, keepalive and header limits
 */
public record ServerSettings(
    String host,
    int port,
    int metricsPort,
    int maxMessageBytes,
    Duration shutdownGrace,
    ServerSecurity security,
    ServingLimits limits) {
  public static final int DEFAULT_MAX_MESSAGE_BYTES = 64 * 1024 * 1024;

  public ServerSettings {
    if (port < 0 || port > 65535) {
      throw new IllegalArgumentException("--port must be within 0..65535, got " + port);
    }
    if (metricsPort > 65535) {
      throw new IllegalArgumentException(
          "--metrics-port must be at most 65535, got " + metricsPort);
    }
    if (maxMessageBytes < 1024) {
      throw new IllegalArgumentException(
          "--max-message-bytes must be at least 1024, got " + maxMessageBytes);
    }
    if (shutdownGrace.isNegative()) {
      throw new IllegalArgumentException("--shutdown-grace-seconds must not be negative");
    }
    if (security == null) {
      security = ServerSecurity.plaintext();
    }
    if (limits == null) {
      limits = ServingLimits.defaults();
    }
  }

  /** Plaintext settings with the default limits (loopback servers: tests, benchmarks). */
  public ServerSettings(
      String host, int port, int metricsPort, int maxMessageBytes, Duration shutdownGrace) {
    this(host, port, metricsPort, maxMessageBytes, shutdownGrace, null, null);
  }

  /** Settings for tests and embedded use: loopback, free ports, no metrics endpoint. */
  public static ServerSettings ephemeral() {
    return new ServerSettings("127.0.0.1", 0, -1, DEFAULT_MAX_MESSAGE_BYTES, Duration.ofSeconds(5));
  }

  /** The same settings with other security. */
  public ServerSettings withSecurity(ServerSecurity newSecurity) {
    return new ServerSettings(
        host, port, metricsPort, maxMessageBytes, shutdownGrace, newSecurity, limits);
  }

  /** The same settings with other limits. */
  public ServerSettings withLimits(ServingLimits newLimits) {
    return new ServerSettings(
        host, port, metricsPort, maxMessageBytes, shutdownGrace, security, newLimits);
  }
}
