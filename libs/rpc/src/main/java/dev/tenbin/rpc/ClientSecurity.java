package dev.tenbin.rpc;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * How a client reaches a server: plaintext, or TLS trusting a CA file (or the system's CAs),
 * optionally with a client certificate for mutual TLS; and optionally a bearer token read from a
 * file and sent as {@code authorization: Bearer <token>} on every call. {@link ClientChannels}
 * turns it into a channel.
 *
 * @param tls speak TLS (implied by a CA file or a client certificate)
 * @param caFile PEM CA certificates the server's certificate must chain to; null: the system's
 * @param clientCert PEM certificate chain presented to the server (mutual TLS), or null
 * @param clientKey PEM private key (PKCS#8) of {@code clientCert}
 * @param serverName the name expected in the server's certificate when it differs from the host
 *     dialled (port-forwards, IP addresses), or null
 * @param tokenFile file whose first token (one a line, {@code #} comments) is sent, or null
 */
public record ClientSecurity(
    boolean tls, Path caFile, Path clientCert, Path clientKey, String serverName, Path tokenFile) {
  public ClientSecurity {
    tls =
        tls
            || caFile != null
            || clientCert != null
            || (serverName != null && !serverName.isBlank());
    if ((clientCert == null) != (clientKey == null)) {
      throw new IllegalArgumentException(
          "a client certificate and its key go together: give both or neither");
    }
    if (serverName != null && serverName.isBlank()) {
      serverName = null;
    }
  }

  /** No TLS, no token (loopback and tests). */
  public static ClientSecurity plaintext() {
    return new ClientSecurity(false, null, null, null, null, null);
  }

  /** TLS trusting the CA certificates in {@code caFile}. */
  public static ClientSecurity trusting(Path caFile) {
    return new ClientSecurity(true, caFile, null, null, null, null);
  }

  /** The same, presenting {@code cert}/{@code key} to the server (mutual TLS). */
  public ClientSecurity withClientCertificate(Path cert, Path key) {
    return new ClientSecurity(tls, caFile, cert, key, serverName, tokenFile);
  }

  /** The same, sending the token in {@code file} with every call. */
  public ClientSecurity withTokenFile(Path file) {
    return new ClientSecurity(tls, caFile, clientCert, clientKey, serverName, file);
  }

  /** The same, expecting {@code name} in the server's certificate. */
  public ClientSecurity withServerName(String name) {
    return new ClientSecurity(tls, caFile, clientCert, clientKey, name, tokenFile);
  }

  /**
   * Security from command-line values, checked with messages naming the flags ({@code prefix} is
   * {@code "--"} or {@code "--service-"}).
   */
  static ClientSecurity fromFlags(
      String prefix,
      boolean tls,
      Path caFile,
      Path clientCert,
      Path clientKey,
      String serverName,
      Path tokenFile) {
    if ((clientCert == null) != (clientKey == null)) {
      throw new IllegalArgumentException(
          prefix
              + "tls-client-cert and "
              + prefix
              + "tls-client-key go together: give both or neither");
    }
    requireReadable(caFile, prefix + "tls-ca");
    requireReadable(clientCert, prefix + "tls-client-cert");
    requireReadable(clientKey, prefix + "tls-client-key");
    requireReadable(tokenFile, prefix + "auth-token-file");
    return new ClientSecurity(tls, caFile, clientCert, clientKey, serverName, tokenFile);
  }

  private static void requireReadable(Path file, String flag) {
    if (file != null && !Files.isReadable(file)) {
      throw new IllegalArgumentException(flag + " " + file + ": no such readable file");
    }
  }

  /** A short description for logs: never the token. */
  public String describe() {
    String transport = !tls ? "plaintext" : clientCert != null ? "mutual TLS" : "TLS";
    return transport + (tokenFile != null ? " with a bearer token" : "");
  }
}
