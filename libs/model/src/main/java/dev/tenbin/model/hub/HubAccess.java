package dev.tenbin.model.hub;

import java.net.URI;
import java.nio.file.Path;
import java.util.Map;

/**
 * How model downloads reach a Hugging Face hub: its base URL and, for gated repositories, a token.
 * The one place that reads the hub's environment ({@code HF_ENDPOINT}, {@code HF_TOKEN}); servers
 * build it once at start, into their config record. The token never appears in {@link #toString}.
 *
 * @param endpoint base URL ({@code https://huggingface.co}, a mirror, or a fake hub in tests)
 * @param token bearer token, or null for anonymous downloads
 */
public record HubAccess(String endpoint, String token) {
  public static final String DEFAULT_ENDPOINT = "https://huggingface.co";

  public HubAccess {
    if (endpoint == null || endpoint.isBlank()) {
      throw new IllegalArgumentException("--hub-endpoint (env HF_ENDPOINT) must not be blank");
    }
    URI uri;
    try {
      uri = URI.create(endpoint.trim());
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          "--hub-endpoint (env HF_ENDPOINT) is not a URL: '" + endpoint + "'");
    }
    if (!"https".equalsIgnoreCase(uri.getScheme()) && !"http".equalsIgnoreCase(uri.getScheme())
        || uri.getHost() == null) {
      throw new IllegalArgumentException(
          "--hub-endpoint (env HF_ENDPOINT) must be an http(s) URL, got '" + endpoint + "'");
    }
    endpoint = endpoint.trim();
    if (token != null && token.isBlank()) {
      token = null;
    }
  }

  /** The public hub, anonymously. */
  public static HubAccess anonymous() {
    return new HubAccess(DEFAULT_ENDPOINT, null);
  }

  /**
   * From {@code HF_ENDPOINT} (default the public hub) and {@code HF_TOKEN} in {@code environment}.
   */
  public static HubAccess fromEnvironment(Map<String, String> environment) {
    String endpoint = environment.get("HF_ENDPOINT");
    return new HubAccess(
        endpoint == null || endpoint.isBlank() ? DEFAULT_ENDPOINT : endpoint,
        environment.get("HF_TOKEN"));
  }

  /** From this process's environment. */
  public static HubAccess fromEnvironment() {
    return fromEnvironment(System.getenv());
  }

  /** The same hub with another base URL (a {@code --hub-endpoint} flag), the token kept. */
  public HubAccess withEndpoint(String newEndpoint) {
    return new HubAccess(newEndpoint, token);
  }

  /** A downloader into {@code cacheDirectory}. */
  public HubDownloader downloader(Path cacheDirectory) {
    return new HubDownloader(endpoint, cacheDirectory, token);
  }

  @Override
  public String toString() {
    return "HubAccess[endpoint=" + endpoint + ", token=" + (token == null ? "none" : "set") + "]";
  }
}
