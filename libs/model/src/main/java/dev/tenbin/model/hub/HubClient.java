package dev.tenbin.model.hub;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * Tenbin's one client of a Hugging Face hub's HTTP API, for model and dataset repositories alike:
 * which commit a revision names and which files the repository has there ({@code
 * /api/{models|datasets}/REPO/revision/REV}), and one file at a commit ({@code .../resolve/SHA/
 * PATH}), written whole and then renamed into place. The token of its {@link HubAccess} goes with
 * every request as {@code Authorization: Bearer}. What a status means (an unknown model, a gated
 * dataset) is the caller's to say: a non-2xx answer is a {@link HubStatusException}.
 */
public final class HubClient {
  /** What a repository holds; the hub's URLs differ by kind. */
  public enum RepositoryKind {
    MODEL("models", ""),
    DATASET("datasets", "datasets/");

    private final String api;
    private final String files;

    RepositoryKind(String api, String files) {
      this.api = api;
      this.files = files;
    }
  }

  /**
   * A revision of a repository: the commit it names and the files there.
   *
   * @param sha the 40-hex commit SHA
   * @param files the repository's file paths at that commit (the hub's {@code siblings})
   */
  public record Revision(String sha, List<String> files) {}

  /** An answer other than 2xx (the response body is closed). */
  public static final class HubStatusException extends RuntimeException {
    private final int status;
    private final String url;

    HubStatusException(int status, String url) {
      super("the hub answered HTTP " + status + " for " + url);
      this.status = status;
      this.url = url;
    }

    public int status() {
      return status;
    }

    public String url() {
      return url;
    }
  }

  private static final Pattern SHA = Pattern.compile("[0-9a-f]{40}");
  private static final ObjectMapper JSON = new ObjectMapper();

  private final HubAccess access;
  private final String endpoint;
  private final HttpClient http;

  public HubClient(HubAccess access) {
    this.access = access;
    this.endpoint =
        access.endpoint().endsWith("/")
            ? access.endpoint().substring(0, access.endpoint().length() - 1)
            : access.endpoint();
    this.http =
        HttpClient.newBuilder()
            .followRedirects(HttpClient.Redirect.NORMAL)
            .connectTimeout(Duration.ofSeconds(20))
            .build();
  }

  /** The hub's base URL, without a trailing slash. */
  public String endpoint() {
    return endpoint;
  }

  /** Whether {@code revision} is already a full commit SHA (nothing to resolve). */
  public static boolean isCommit(String revision) {
    return SHA.matcher(revision).matches();
  }

  /**
   * The commit {@code revision} of {@code repository} names now, and the files there.
   *
   * @throws HubStatusException when the hub answers other than 2xx
   * @throws UncheckedIOException when the hub cannot be reached
   */
  public Revision revision(RepositoryKind kind, String repository, String revision) {
    String url =
        endpoint
            + "/api/"
            + kind.api
            + "/"
            + repository
            + "/revision/"
            + URLEncoder.encode(revision, StandardCharsets.UTF_8);
    JsonNode json;
    try (InputStream body = get(url, Duration.ofMinutes(1)).body()) {
      json = JSON.readTree(body);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the hub's answer from " + url, e);
    }
    String sha = json == null ? "" : json.path("sha").asText("");
    if (!isCommit(sha)) {
      throw new IllegalStateException("the hub answered no commit SHA for " + url);
    }
    List<String> files = new ArrayList<>();
    for (JsonNode sibling : json.path("siblings")) {
      String name = sibling.path("rfilename").asText("");
      if (!name.isEmpty()) {
        files.add(name);
      }
    }
    return new Revision(sha, List.copyOf(files));
  }

  /**
   * Downloads {@code path} of {@code repository} at commit {@code sha} into {@code target}: written
   * to a temporary file beside it, then renamed into place, so a reader never sees half a file.
   *
   * @return false when the repository has no such file (HTTP 404)
   * @throws HubStatusException when the hub answers anything else other than 2xx
   * @throws UncheckedIOException when the hub cannot be reached or the file cannot be written
   */
  public boolean download(
      RepositoryKind kind, String repository, String sha, String path, Path target) {
    StringBuilder url = new StringBuilder(endpoint + "/" + kind.files + repository + "/resolve/");
    url.append(sha);
    for (String segment : path.split("/")) {
      url.append('/')
          .append(URLEncoder.encode(segment, StandardCharsets.UTF_8).replace("+", "%20"));
    }
    HttpResponse<InputStream> response;
    try {
      response = get(url.toString(), Duration.ofMinutes(30));
    } catch (HubStatusException e) {
      if (e.status() == 404) {
        return false;
      }
      throw e;
    }
    try (InputStream body = response.body()) {
      Files.createDirectories(target.getParent());
      Path partial =
          Files.createTempFile(target.getParent(), target.getFileName().toString(), ".part");
      try {
        Files.copy(body, partial, StandardCopyOption.REPLACE_EXISTING);
        Files.move(
            partial, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
      } finally {
        Files.deleteIfExists(partial);
      }
      return true;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot download " + url + " to " + target, e);
    }
  }

  /** A 2xx response to GET {@code url}. */
  private HttpResponse<InputStream> get(String url, Duration timeout) {
    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(url)).timeout(timeout).GET();
    if (access.token() != null) {
      request.header("Authorization", "Bearer " + access.token());
    }
    HttpResponse<InputStream> response;
    try {
      response = http.send(request.build(), HttpResponse.BodyHandlers.ofInputStream());
    } catch (IOException e) {
      throw new UncheckedIOException("cannot reach the hub at " + url, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while fetching " + url, e);
    }
    if (response.statusCode() / 100 == 2) {
      return response;
    }
    try {
      response.body().close();
    } catch (IOException ignored) {
      // the status says all there is to say
    }
    throw new HubStatusException(response.statusCode(), url);
  }
}
