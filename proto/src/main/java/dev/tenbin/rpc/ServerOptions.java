package dev.tenbin.rpc;

import java.time.Duration;
import picocli.CommandLine.Option;

/**
 * The command-line and environment options every server takes (a picocli mixin). Each flag falls
 * back to an environment variable, so the same image runs under Kubernetes with env-only config.
 */
public final class ServerOptions {
  @Option(
      names = "--host",
      defaultValue = "${env:TENBIN_HOST:-0.0.0.0}",
      description = "Address to bind (env TENBIN_HOST; default ${DEFAULT-VALUE}).")
  String host;

  @Option(
      names = "--port",
      defaultValue = "${env:TENBIN_PORT:-__DEFAULT_PORT__}",
      description = "gRPC port; 0 picks a free one (env TENBIN_PORT).")
  String port;

  @Option(
      names = "--metrics-port",
      defaultValue = "${env:TENBIN_METRICS_PORT:--1}",
      description =
          "Prometheus HTTP port serving /metrics; 0 picks a free one, -1 disables (env"
              + " TENBIN_METRICS_PORT; default ${DEFAULT-VALUE}).")
  int metricsPort;

  @Option(
      names = "--max-message-bytes",
      defaultValue = "${env:TENBIN_MAX_MESSAGE_BYTES:-67108864}",
      description = "Largest inbound gRPC message (env TENBIN_MAX_MESSAGE_BYTES; default ${DEFAULT-VALUE}).")
  int maxMessageBytes;

  @Option(
      names = "--shutdown-grace-seconds",
      defaultValue = "${env:TENBIN_SHUTDOWN_GRACE_SECONDS:-20}",
      description = "Seconds in-flight calls may run on after SIGTERM (default ${DEFAULT-VALUE}).")
  long shutdownGraceSeconds;

  /** Resolves the options; {@code defaultPort} applies when neither flag nor env set the port. */
  public ServerSettings toSettings(int defaultPort) {
    int resolvedPort;
    if (port == null || port.equals("__DEFAULT_PORT__")) {
      resolvedPort = defaultPort;
    } else {
      try {
        resolvedPort = Integer.parseInt(port.trim());
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException("--port must be a number, got '" + port + "'");
      }
    }
    return new ServerSettings(
        host, resolvedPort, metricsPort, maxMessageBytes, Duration.ofSeconds(shutdownGraceSeconds));
  }
}
