package dev.tenbin.encoder.model;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tenbin.core.InvalidInputException;
import dev.tenbin.core.NotFoundException;
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
import java.util.List;
import java.util.regex.Pattern;

/**
 * Downloads a model repository from a Hugging Face hub at a pinned revision, once. The revision
 * (branch, tag or commit) is resolved to its commit SHA through the hub API; files are fetched
 * from {@code /{repo}/resolve/{sha}/{file}} into {@code cache/hub/{owner}--{name}/{sha}/}, each
 * written to a temporary file and renamed, and the card records the source and the resolved SHA.
 * A finished download is never fetched again. The repository must carry a Tenbin
 * {@code card.json} (or one is given by the caller).
 */
public final class HubDownloader {
  private static final Pattern REPO = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]*/[A-Za-z0-9][A-Za-z0-9._-]*");
  private static final Pattern SHA = Pattern.compile("[0-9a-f]{40}");

  private final String endpoint;
  private final Path cacheDirectory;
  private final HttpClient http;
  private final String token;

  /** {@code OWNER/NAME@REVISION}; the revision is required so downloads are reproducible. */
  public record Reference(String repository, String revision) {
    public static Reference parse(String text) {
      int at = text.lastIndexOf('@');
      if (at <= 0 || at == text.length() - 1) {
        throw new InvalidInputException(
            "model_id", "hub models need a pinned revision: hub:OWNER/NAME@REVISION, got hub:" + text);
      }
      String repository = text.substring(0, at);
      if (!REPO.matcher(repository).matches()) {
        throw new InvalidInputException("model_id", "not a hub repository name: " + repository);
      }
      return new Reference(repository, text.substring(at + 1));
    }
  }

  public HubDownloader(String endpoint, Path cacheDirectory, String token) {
    this.endpoint = endpoint.endsWith("/") ? endpoint.substring(0, endpoint.length() - 1) : endpoint;
    this.cacheDirectory = cacheDirectory;
    this.token = token;
    this.http = HttpClient.newBuilder().followRedirects(HttpClient.Redirect.NORMAL).connectTimeout(Duration.ofSeconds(20)).build();
  }

  /** The folder holding the downloaded model (card.json, ONNX, tokenizer). */
  public Path fetch(Reference reference) {
    String sha = SHA.matcher(reference.revision()).matches() ? reference.revision() : resolve(reference);
    Path folder = cacheDirectory.resolve("hub").resolve(reference.repository().replace("/", "--")).resolve(sha);
    if (Files.isRegularFile(folder.resolve("card.json")) && Files.exists(folder.resolve(".complete"))) {
      return folder;
    }
    try {
      Files.createDirectories(folder);
      download(reference.repository(), sha, "card.json", folder);
      ModelCard card = LocalModelDirectory.readCard(folder);
      for (String file : List.of(card.onnxFile(), card.tokenizerFile())) {
        download(reference.repository(), sha, file, folder);
      }
      LocalModelDirectory.writeCard(
          folder, card.withOrigin("hub:" + reference.repository() + "@" + reference.revision(), reference.revision(), sha));
      Files.writeString(folder.resolve(".complete"), sha);
      return folder;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot download " + reference.repository() + "@" + sha, e);
    }
  }

  /** The commit SHA a branch or tag points to now. */
  String resolve(Reference reference) {
    String url =
        endpoint + "/api/models/" + reference.repository() + "/revision/"
            + URLEncoder.encode(reference.revision(), StandardCharsets.UTF_8);
    HttpResponse<InputStream> response = get(url);
    try (InputStream body = response.body()) {
      JsonNode json = LocalModelDirectory.JSON.readTree(body);
      String sha = json.path("sha").asText("");
      if (!SHA.matcher(sha).matches()) {
        throw new IllegalStateException("the hub answered no commit SHA for " + reference);
      }
      return sha;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private void download(String repository, String sha, String file, Path folder) throws IOException {
    Path target = folder.resolve(file);
    if (Files.exists(target) && !file.equals("card.json")) {
      return;
    }
    HttpResponse<InputStream> response = get(endpoint + "/" + repository + "/resolve/" + sha + "/" + file);
    Path partial = folder.resolve(file + ".part");
    try (InputStream body = response.body()) {
      Files.copy(body, partial, StandardCopyOption.REPLACE_EXISTING);
    }
    Files.move(partial, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
  }

  private HttpResponse<InputStream> get(String url) {
    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofMinutes(10)).GET();
    if (token != null && !token.isBlank()) {
      request.header("Authorization", "Bearer " + token);
    }
    try {
      HttpResponse<InputStream> response = http.send(request.build(), HttpResponse.BodyHandlers.ofInputStream());
      if (response.statusCode() == 404) {
        response.body().close();
        throw new NotFoundException("model_id", "the hub has no " + url);
      }
      if (response.statusCode() / 100 != 2) {
        response.body().close();
        throw new IllegalStateException("the hub answered HTTP " + response.statusCode() + " for " + url);
      }
      return response;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot reach the hub at " + url, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }
}
