package dev.tenbin.rpc;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Path;
import java.time.Duration;

/**
 * Who may talk to a server: transport security (TLS, optionally mutual) and bearer tokens.
 *
 * <p>Plaintext is only served on a loopback address unless {@code allowPlaintext} says otherwise
 * (for a TLS-terminating mesh or proxy in front of the pod): binding a reachable address without
 * TLS is refused at start. Without a token file every client that reaches the port is trusted; on a
 * non-loopback address that is logged as a warning.
 *
 * @param tlsCert PEM certificate chain of the server, or null for plaintext
 * @param tlsKey PEM private key (PKCS#8) of {@code tlsCert}
 * @param tlsClientCa PEM CA certificates client certificates must be signed by (mutual TLS), or
 *     null to not ask for client certificates
 * @param authTokenFile bearer tokens, one a line ({@code #} comments), or null for none
 * @param reloadInterval how often certificate, key and CA files are checked for changes
 * @param allowPlaintext serve without TLS on a non-loopback address
 */
public record ServerSecurity(
    Path tlsCert,
    Path tlsKey,
    Path tlsClientCa,
    Path authTokenFile,
    Duration reloadInterval,
    boolean allowPlaintext) {
  public static final Duration DEFAULT_RELOAD_INTERVAL = Duration.ofMinutes(1);

  public ServerSecurity {
    if ((tlsCert == null) != (tlsKey == null)) {
      throw new IllegalArgumentException(
          "--tls-cert and --tls-key go together: give both or neither");
    }
    if (tlsClientCa != null && tlsCert == null) {
      throw new IllegalArgumentException(
          "--tls-client-ca needs --tls-cert and --tls-key (mutual TLS is TLS)");
    }
    if (reloadInterval == null || reloadInterval.isNegative() || reloadInterval.isZero()) {
      throw new IllegalArgumentException("--tls-reload-seconds must be positive");
    }
  }

  /** No TLS, no tokens: loopback only. */
  public static ServerSecurity plaintext() {
    return new ServerSecurity(null, null, null, null, DEFAULT_RELOAD_INTERVAL, false);
  }

  public boolean tls() {
    return tlsCert != null;
  }

  public boolean mutualTls() {
    return tlsClientCa != null;
  }

  public boolean tokens() {
    return authTokenFile != null;
  }

  /** The same security with bearer tokens read from {@code file}. */
  public ServerSecurity withAuthTokenFile(Path file) {
    return new ServerSecurity(tlsCert, tlsKey, tlsClientCa, file, reloadInterval, allowPlaintext);
  }

  /**
   * The same security with TLS from these PEM files ({@code clientCa} null: no client
   * certificates).
   */
  public ServerSecurity withTls(Path cert, Path key, Path clientCa) {
    return new ServerSecurity(cert, key, clientCa, authTokenFile, reloadInterval, allowPlaintext);
  }

  /** The same security checking certificate files every {@code interval}. */
  public ServerSecurity withReloadInterval(Duration interval) {
    return new ServerSecurity(
        tlsCert, tlsKey, tlsClientCa, authTokenFile, interval, allowPlaintext);
  }

  /** Whether {@code host} resolves to a loopback address (127.0.0.0/8, ::1, localhost). */
  public static boolean isLoopback(String host) {
    try {
      return InetAddress.getByName(host).isLoopbackAddress();
    } catch (UnknownHostException e) {
      return false;
    }
  }

  /**
   * Refuses plaintext on a reachable address unless {@link #allowPlaintext} is set. Servers check
   * it before they create anything on disk.
   */
  public void checkBind(String host) {
    if (!tls() && !allowPlaintext && !isLoopback(host)) {
      throw new IllegalArgumentException(
          "refusing to serve plaintext on "
              + host
              + ", which is not a loopback address: give"
              + " --tls-cert and --tls-key, or --allow-plaintext when a TLS-terminating proxy or"
              + " mesh stands in front");
    }
  }
}
