package dev.tenbin.rpc;

import java.nio.file.Path;
import picocli.CommandLine.Option;

/**
 * The options of a command that calls a Tenbin server (a picocli mixin, the client's counterpart of
 * {@link ServerOptions}): TLS, mutual TLS and a bearer token, each with an environment fallback.
 * Processes that are servers themselves name the same options with a {@code --service-} prefix
 * ({@link ServiceClientOptions}), since {@code --auth-token-file} is then their own tokens.
 */
public final class ClientOptions {
  @Option(
      names = "--tls",
      defaultValue = "${env:TENBIN_TLS:-false}",
      description = "Speak TLS, trusting the system's CAs (implied by --tls-ca) (env TENBIN_TLS).")
  boolean tls;

  @Option(
      names = "--tls-ca",
      paramLabel = "FILE",
      defaultValue = "${env:TENBIN_TLS_CA}",
      description = "Speak TLS, trusting the PEM CA certificates in FILE (env TENBIN_TLS_CA).")
  Path caFile;

  @Option(
      names = "--tls-client-cert",
      paramLabel = "FILE",
      defaultValue = "${env:TENBIN_TLS_CLIENT_CERT}",
      description = "PEM certificate chain to present (mutual TLS) (env TENBIN_TLS_CLIENT_CERT).")
  Path clientCert;

  @Option(
      names = "--tls-client-key",
      paramLabel = "FILE",
      defaultValue = "${env:TENBIN_TLS_CLIENT_KEY}",
      description = "PEM private key (PKCS#8) of --tls-client-cert (env TENBIN_TLS_CLIENT_KEY).")
  Path clientKey;

  @Option(
      names = "--tls-server-name",
      paramLabel = "NAME",
      defaultValue = "${env:TENBIN_TLS_SERVER_NAME}",
      description =
          "Name expected in the server's certificate when it differs from the host dialled (env"
              + " TENBIN_TLS_SERVER_NAME).")
  String serverName;

  @Option(
      names = "--auth-token-file",
      paramLabel = "FILE",
      defaultValue = "${env:TENBIN_CLIENT_TOKEN_FILE}",
      description =
          "Send 'authorization: Bearer <token>' with the first token in FILE (never in plaintext to a"
              + " remote host) (env TENBIN_CLIENT_TOKEN_FILE).")
  Path tokenFile;

  /** The security these options describe; unreadable files are a clear error naming the flag. */
  public ClientSecurity toSecurity() {
    return ClientSecurity.fromFlags(
        "--", tls, caFile, clientCert, clientKey, serverName, tokenFile);
  }
}
