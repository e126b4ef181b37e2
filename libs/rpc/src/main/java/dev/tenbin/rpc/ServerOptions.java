package dev.tenbin.rpc;

import java.nio.file.Path;
import java.time.Duration;
import picocli.CommandLine.Option;

/**
 * The command-line and environment options every server takes (a picocli mixin). Each flag falls
 * back to an environment variable, so the same image runs under Kubernetes with env-only config.
 */
public final class ServerOptions {
  @Option(
      names = "--host",
      defaultValue = "${env:TENBIN_HOST:-127.0.0.1}",
      description =
          "Address to bind (env TENBIN_HOST; default ${DEFAULT-VALUE}, this machine only). A"
              + " non-loopback address needs --tls-cert/--tls-key or --allow-plaintext.")
  String host;

  @Option(
      names = "--port",
      paramLabel = "N",
      defaultValue = "${env:TENBIN_PORT}",
      description =
          "gRPC port; 0 picks a free one (env TENBIN_PORT; default the service's own: index 50052,"
              + " encoder 50051, rerank 50053, eval 50054).")
  Integer port;

  @Option(
      names = "--metrics-port",
      defaultValue = "${env:TENBIN_METRICS_PORT:--1}",
      description =
          "Prometheus HTTP port serving /metrics on --host; 0 picks a free one, -1 disables (env"
              + " TENBIN_METRICS_PORT; default ${DEFAULT-VALUE}).")
  int metricsPort;

  @Option(
      names = "--max-message-bytes",
      defaultValue = "${env:TENBIN_MAX_MESSAGE_BYTES:-67108864}",
      description =
          "Largest inbound gRPC message; larger is RESOURCE_EXHAUSTED (env TENBIN_MAX_MESSAGE_BYTES;"
              + " default ${DEFAULT-VALUE} = 64 MiB).")
  int maxMessageBytes;

  @Option(
      names = "--max-metadata-bytes",
      defaultValue = "${env:TENBIN_MAX_METADATA_BYTES:-8192}",
      description =
          "Largest request header block (metadata, tokens included) (env TENBIN_MAX_METADATA_BYTES;"
              + " default ${DEFAULT-VALUE}).")
  int maxMetadataBytes;

  @Option(
      names = "--shutdown-grace-seconds",
      defaultValue = "${env:TENBIN_SHUTDOWN_GRACE_SECONDS:-20}",
      description = "Seconds in-flight calls may run on after SIGTERM (default ${DEFAULT-VALUE}).")
  long shutdownGraceSeconds;

  @Option(
      names = "--tls-cert",
      paramLabel = "FILE",
      defaultValue = "${env:TENBIN_TLS_CERT}",
      description =
          "PEM certificate chain: serve TLS (env TENBIN_TLS_CERT). Reloaded when the file changes.")
  Path tlsCert;

  @Option(
      names = "--tls-key",
      paramLabel = "FILE",
      defaultValue = "${env:TENBIN_TLS_KEY}",
      description = "PEM private key (PKCS#8) of --tls-cert (env TENBIN_TLS_KEY).")
  Path tlsKey;

  @Option(
      names = "--tls-client-ca",
      paramLabel = "FILE",
      defaultValue = "${env:TENBIN_TLS_CLIENT_CA}",
      description =
          "PEM CA certificates: require client certificates signed by them, mutual TLS (env"
              + " TENBIN_TLS_CLIENT_CA).")
  Path tlsClientCa;

  @Option(
      names = "--tls-reload-seconds",
      defaultValue = "${env:TENBIN_TLS_RELOAD_SECONDS:-60}",
      description = "How often the TLS files are checked for changes (default ${DEFAULT-VALUE}).")
  long tlsReloadSeconds;

  @Option(
      names = "--auth-token-file",
      paramLabel = "FILE",
      defaultValue = "${env:TENBIN_AUTH_TOKEN_FILE}",
      description =
          "Require 'authorization: Bearer <token>' with one of the tokens in FILE (one a line, #"
              + " comments, at least 16 characters); reloaded when the file changes. Health checks"
              + " stay open (env TENBIN_AUTH_TOKEN_FILE).")
  Path authTokenFile;

  @Option(
      names = "--allow-plaintext",
      defaultValue = "${env:TENBIN_ALLOW_PLAINTEXT:-false}",
      description =
          "Serve without TLS on a non-loopback --host (behind a TLS-terminating proxy or mesh) (env"
              + " TENBIN_ALLOW_PLAINTEXT).")
  boolean allowPlaintext;

  @Option(
      names = "--handler-threads",
      defaultValue = "${env:TENBIN_HANDLER_THREADS:-0}",
      description =
          "Threads running calls; 0 = two per core, at least 4 (env TENBIN_HANDLER_THREADS).")
  int handlerThreads;

  @Option(
      names = "--max-concurrent-calls",
      defaultValue = "${env:TENBIN_MAX_CONCURRENT_CALLS:-0}",
      description =
          "Calls admitted at once; beyond, RESOURCE_EXHAUSTED with RetryInfo at once. 0 = four per"
              + " handler thread (env TENBIN_MAX_CONCURRENT_CALLS).")
  int maxConcurrentCalls;

  @Option(
      names = "--max-concurrent-calls-per-connection",
      defaultValue = "${env:TENBIN_MAX_CONCURRENT_CALLS_PER_CONNECTION:-0}",
      description =
          "HTTP/2 streams one connection may have open (clients queue beyond); 0 = twice"
              + " --max-concurrent-calls, at least 100.")
  int maxConcurrentCallsPerConnection;

  @Option(
      names = "--keepalive-seconds",
      defaultValue = "${env:TENBIN_KEEPALIVE_SECONDS:-60}",
      description = "Ping a connection after this long without traffic (default ${DEFAULT-VALUE}).")
  long keepAliveSeconds;

  @Option(
      names = "--keepalive-timeout-seconds",
      defaultValue = "${env:TENBIN_KEEPALIVE_TIMEOUT_SECONDS:-20}",
      description =
          "Drop a connection, cancelling its calls, when a ping is unanswered this long (default"
              + " ${DEFAULT-VALUE}).")
  long keepAliveTimeoutSeconds;

  @Option(
      names = "--max-connection-idle-seconds",
      defaultValue = "${env:TENBIN_MAX_CONNECTION_IDLE_SECONDS:-900}",
      description = "Close a connection without calls after this long (default ${DEFAULT-VALUE}).")
  long maxConnectionIdleSeconds;

  @Option(
      names = "--max-connection-age-seconds",
      defaultValue = "${env:TENBIN_MAX_CONNECTION_AGE_SECONDS:-0}",
      description =
          "Ask clients to reconnect after a connection has lived this long (give or take 10%%), so"
              + " clients of a dns:/// target resolve the name again and new replicas get calls; 0"
              + " never does (env TENBIN_MAX_CONNECTION_AGE_SECONDS; default ${DEFAULT-VALUE}).")
  long maxConnectionAgeSeconds;

  @Option(
      names = "--max-connection-age-grace-seconds",
      defaultValue = "${env:TENBIN_MAX_CONNECTION_AGE_GRACE_SECONDS:-1800}",
      description =
          "How long calls still open on a connection past its age may run before it is closed"
              + " under them (env TENBIN_MAX_CONNECTION_AGE_GRACE_SECONDS; default"
              + " ${DEFAULT-VALUE}).")
  long maxConnectionAgeGraceSeconds;

  @Option(
      names = "--log-format",
      paramLabel = "text|json",
      defaultValue = "${env:TENBIN_LOG_FORMAT:-text}",
      description =
          "Log lines as text (UTC time, level, thread, logger, message) or as one JSON object a"
              + " line for log collectors (env TENBIN_LOG_FORMAT; default ${DEFAULT-VALUE}).")
  String logFormat;

  /** The log format asked for ({@link IllegalArgumentException} naming the flag). */
  public ProcessLogging.Format logFormat() {
    return ProcessLogging.Format.parse(logFormat == null ? "text" : logFormat);
  }

  /**
   * Resolves and checks the options ({@link IllegalArgumentException} naming the flag); {@code
   * defaultPort} applies when neither flag nor env set the port.
   */
  public ServerSettings toSettings(int defaultPort) {
    int resolvedPort = port == null ? defaultPort : port;
    if (host == null || host.isBlank()) {
      throw new IllegalArgumentException("--host must not be blank");
    }
    if (metricsPort < -1) {
      throw new IllegalArgumentException(
          "--metrics-port must be -1 (off) or within 0..65535, got " + metricsPort);
    }
    if (shutdownGraceSeconds < 0) {
      throw new IllegalArgumentException(
          "--shutdown-grace-seconds must not be negative, got " + shutdownGraceSeconds);
    }
    if (tlsReloadSeconds < 1) {
      throw new IllegalArgumentException(
          "--tls-reload-seconds must be at least 1, got " + tlsReloadSeconds);
    }
    zeroOrPositive("--handler-threads", handlerThreads);
    zeroOrPositive("--max-concurrent-calls", maxConcurrentCalls);
    zeroOrPositive("--max-concurrent-calls-per-connection", maxConcurrentCallsPerConnection);
    ServingLimits sizes =
        ServingLimits.of(handlerThreads, maxConcurrentCalls, maxConcurrentCallsPerConnection);
    ServingLimits limits =
        new ServingLimits(
            sizes.handlerThreads(),
            sizes.maxConcurrentCalls(),
            sizes.maxConcurrentCallsPerConnection(),
            Duration.ofSeconds(keepAliveSeconds),
            Duration.ofSeconds(keepAliveTimeoutSeconds),
            Duration.ofSeconds(maxConnectionIdleSeconds),
            Duration.ofSeconds(maxConnectionAgeSeconds),
            Duration.ofSeconds(maxConnectionAgeGraceSeconds),
            maxMetadataBytes,
            ServingLimits.DEFAULT_RETRY_AFTER);
    ServerSecurity security =
        new ServerSecurity(
            tlsCert,
            tlsKey,
            tlsClientCa,
            authTokenFile,
            Duration.ofSeconds(tlsReloadSeconds),
            allowPlaintext);
    return new ServerSettings(
        host,
        resolvedPort,
        metricsPort,
        maxMessageBytes,
        Duration.ofSeconds(shutdownGraceSeconds),
        security,
        limits);
  }

  private static void zeroOrPositive(String flag, int value) {
    if (value < 0) {
      throw new IllegalArgumentException(
          flag + " must be 0 (its default) or positive, got " + value);
    }
  }
}
