package dev.tenbin.testing.rpc;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.time.Duration;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/**
 * A real HTTP client ({@link HttpClient}, HTTP/1.1) for tests of HTTP endpoints, and the JSON of
 * their answers read with exact decimals (so a float written by the server reads back bit for bit).
 */
public final class TestHttp {
  /** Reads numbers as {@link java.math.BigDecimal}: {@code floatValue()} is then exact. */
  public static final ObjectMapper JSON =
      new ObjectMapper().enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS);

  private final HttpClient client;
  private final String base;

  private TestHttp(HttpClient client, String base) {
    this.client = client;
    this.base = base;
  }

  /** A plaintext client of {@code http://127.0.0.1:port}. */
  public static TestHttp plaintext(int port) {
    return new TestHttp(builder().build(), "http://127.0.0.1:" + port);
  }

  /** An HTTPS client trusting {@code ca}, presenting {@code identity} when not null. */
  public static TestHttp https(
      int port, TestCertificates.Authority ca, TestCertificates.Issued identity) {
    try {
      KeyStore trust = KeyStore.getInstance("PKCS12");
      trust.load(null, null);
      trust.setCertificateEntry("ca", ca.certificate());
      TrustManagerFactory trustFactory =
          TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
      trustFactory.init(trust);
      KeyManagerFactory keyFactory = null;
      if (identity != null) {
        KeyStore keys = KeyStore.getInstance("PKCS12");
        keys.load(null, null);
        char[] password = "test".toCharArray();
        keys.setKeyEntry(
            "me",
            identity.keys().getPrivate(),
            password,
            new Certificate[] {identity.certificate()});
        keyFactory = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        keyFactory.init(keys, password);
      }
      SSLContext context = SSLContext.getInstance("TLS");
      context.init(
          keyFactory == null ? null : keyFactory.getKeyManagers(),
          trustFactory.getTrustManagers(),
          null);
      return new TestHttp(builder().sslContext(context).build(), "https://127.0.0.1:" + port);
    } catch (GeneralSecurityException | IOException e) {
      throw new IllegalStateException(e);
    }
  }

  private static HttpClient.Builder builder() {
    return HttpClient.newBuilder()
        .version(HttpClient.Version.HTTP_1_1)
        .connectTimeout(Duration.ofSeconds(10));
  }

  /** POSTs {@code json} to {@code path}, with {@code token} as bearer token when not null. */
  public HttpResponse<String> post(String path, String json, String token) {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(URI.create(base + path))
            .timeout(Duration.ofSeconds(60))
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(json));
    if (token != null) {
      request.header("Authorization", "Bearer " + token);
    }
    return send(request.build());
  }

  /** POSTs {@code json} to {@code path} without a token. */
  public HttpResponse<String> post(String path, String json) {
    return post(path, json, null);
  }

  /** GETs {@code path}. */
  public HttpResponse<String> get(String path) {
    return send(
        HttpRequest.newBuilder(URI.create(base + path))
            .timeout(Duration.ofSeconds(60))
            .GET()
            .build());
  }

  /** Sends a request as it is. */
  public HttpResponse<String> send(HttpRequest request) {
    try {
      return client.send(request, HttpResponse.BodyHandlers.ofString());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /** The base URI ({@code http://127.0.0.1:port}). */
  public String base() {
    return base;
  }

  /** The body as JSON. */
  public static JsonNode json(HttpResponse<String> response) {
    try {
      return JSON.readTree(response.body());
    } catch (IOException e) {
      throw new UncheckedIOException("not JSON: " + response.body(), e);
    }
  }
}
