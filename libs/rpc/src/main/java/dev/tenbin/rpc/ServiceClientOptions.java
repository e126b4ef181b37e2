package dev.tenbin.rpc;

import java.nio.file.Path;
import picocli.CommandLine.Option;

/**
 * {@link ClientOptions} for the services a command or server calls ({@code --index-endpoint},
 * {@code --encoder-endpoint}, {@code --rerank-endpoint}): the same options with a {@code
 * --service-} prefix and {@code TENBIN_SERVICE_} environment variables, so they never clash with a
 * server's own {@code --tls-*} and {@code --auth-token-file}.
 */
public final class ServiceClientOptions {
  @Option(
      names = "--service-tls",
      defaultValue = "${env:TENBIN_SERVICE_TLS:-false}",
      description =
          "Reach the services over TLS, trusting the system's CAs (env TENBIN_SERVICE_TLS).")
  boolean tls;

  @Option(
      names = "--service-tls-ca",
      paramLabel = "FILE",
      defaultValue = "${env:TENBIN_SERVICE_TLS_CA}",
      description =
          "Reach the services over TLS, trusting the PEM CAs in FILE (env TENBIN_SERVICE_TLS_CA).")
  Path caFile;

  @Option(
      names = "--service-tls-client-cert",
      paramLabel = "FILE",
      defaultValue = "${env:TENBIN_SERVICE_TLS_CLIENT_CERT}",
      description =
          "PEM certificate chain to present to the services (env TENBIN_SERVICE_TLS_CLIENT_CERT).")
  Path clientCert;

  @Option(
      names = "--service-tls-client-key",
      paramLabel = "FILE",
      defaultValue = "${env:TENBIN_SERVICE_TLS_CLIENT_KEY}",
      description =
          "PEM private key (PKCS#8) of --service-tls-client-cert (env TENBIN_SERVICE_TLS_CLIENT_KEY).")
  Path clientKey;

  @Option(
      names = "--service-tls-server-name",
      paramLabel = "NAME",
      defaultValue = "${env:TENBIN_SERVICE_TLS_SERVER_NAME}",
      description =
          "Name expected in the services' certificates (env TENBIN_SERVICE_TLS_SERVER_NAME).")
  String serverName;

  @Option(
      names = "--service-auth-token-file",
      paramLabel = "FILE",
      defaultValue = "${env:TENBIN_SERVICE_TOKEN_FILE}",
      description =
          "Send the first token in FILE to the services as 'authorization: Bearer <token>' (env"
              + " TENBIN_SERVICE_TOKEN_FILE).")
  Path tokenFile;

  /** Whether a CA, client certificate or key file is given (they come from one TLS Secret). */
  public boolean hasTlsFiles() {
    return caFile != null || clientCert != null || clientKey != null;
  }

  /** Whether a token file is given. */
  public boolean hasTokenFile() {
    return tokenFile != null;
  }

  /**
   * These options as the command line of another process (a pod) that finds the same files, by
   * name, under {@code tlsDirectory} and {@code tokenDirectory}.
   */
  public java.util.List<String> toArgs(Path tlsDirectory, Path tokenDirectory) {
    java.util.List<String> args = new java.util.ArrayList<>();
    if (tls) {
      args.add("--service-tls");
    }
    addFile(args, "--service-tls-ca", caFile, tlsDirectory);
    addFile(args, "--service-tls-client-cert", clientCert, tlsDirectory);
    addFile(args, "--service-tls-client-key", clientKey, tlsDirectory);
    if (serverName != null) {
      args.add("--service-tls-server-name");
      args.add(serverName);
    }
    addFile(args, "--service-auth-token-file", tokenFile, tokenDirectory);
    return args;
  }

  private static void addFile(java.util.List<String> args, String name, Path file, Path directory) {
    if (file != null) {
      args.add(name);
      args.add(directory.resolve(file.getFileName().toString()).toString());
    }
  }

  /** The security these options describe; unreadable files are a clear error naming the flag. */
  public ClientSecurity toSecurity() {
    return ClientSecurity.fromFlags(
        "--service-", tls, caFile, clientCert, clientKey, serverName, tokenFile);
  }
}
