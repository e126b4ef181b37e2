package dev.tenbin.rpc;

import io.grpc.util.AdvancedTlsX509TrustManager;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.security.GeneralSecurityException;
import java.time.Duration;
import javax.net.ssl.KeyManager;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManager;

/**
 * GET requests to a Tenbin service's HTTP port (the eval web UI, the encoder's HTTP API) with what
 * a {@link ClientSecurity} says, as {@link ClientChannels} does for gRPC: TLS trusting its CA file
 * (or the system's CAs), its client certificate under mutual TLS, and its bearer token as {@code
 * Authorization: Bearer}. The files are read once, when the client is made.
 */
public final class ClientHttp {
  private final HttpClient client;
  private final String scheme;
  private final String token;

  private ClientHttp(HttpClient client, String scheme, String token) {
    this.client = client;
    this.scheme = scheme;
    this.token = token;
  }

  /**
   * A client for {@code security}.
   *
   * @throws IllegalArgumentException when a file is missing or malformed, naming it
   */
  public static ClientHttp of(ClientSecurity security, Duration connectTimeout) {
    HttpClient.Builder builder =
        HttpClient.newBuilder()
            .connectTimeout(connectTimeout)
            .followRedirects(HttpClient.Redirect.NEVER);
    if (security.tls()) {
      builder.sslContext(sslContext(security));
    }
    String token =
        security.tokenFile() == null
            ? null
            : new BearerTokenCredentials(security.tokenFile()).token();
    return new ClientHttp(builder.build(), security.tls() ? "https" : "http", token);
  }

  private static SSLContext sslContext(ClientSecurity security) {
    try {
      SSLContext context = SSLContext.getInstance("TLS");
      if (security.caFile() == null && security.clientCert() == null) {
        context.init(null, null, null);
        return context;
      }
      try (TlsFiles files =
          TlsFiles.open(
              security.clientCert(),
              security.clientKey(),
              security.caFile(),
              new TlsFiles.Labels("client certificate", "client key", "TLS CA file"),
              AdvancedTlsX509TrustManager.Verification.CERTIFICATE_AND_HOST_NAME_VERIFICATION,
              Duration.ofDays(1),
              ClientChannels.reloadScheduler())) {
        KeyManager[] keys =
            files.keyManager() == null ? null : new KeyManager[] {files.keyManager()};
        TrustManager[] trust =
            files.trustManager() == null ? null : new TrustManager[] {files.trustManager()};
        context.init(keys, trust, null);
        return context;
      }
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("cannot set up TLS for HTTP: " + e.getMessage(), e);
    }
  }

  /**
   * GET {@code path} (with its query) on {@code host:port}; the body is the caller's to read and
   * close.
   */
  public HttpResponse<InputStream> get(HostPort address, String path, Duration timeout)
      throws IOException, InterruptedException {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(URI.create(scheme + "://" + address + path)).timeout(timeout).GET();
    if (token != null) {
      request.header("Authorization", "Bearer " + token);
    }
    return client.send(request.build(), HttpResponse.BodyHandlers.ofInputStream());
  }
}
