package dev.tenbin.model.hub;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tenbin.core.FailureReasons;
import dev.tenbin.core.InvalidInputException;
import dev.tenbin.core.NotFoundException;
import dev.tenbin.model.card.LocalModelDirectory;
import dev.tenbin.model.card.ModelCard;
import dev.tenbin.model.card.RepositoryFiles;
import dev.tenbin.model.card.SentenceTransformersCard;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * Downloads a model repository from a Hugging Face hub at a pinned revision, once. The revision
 * (branch, tag or commit) is resolved to its commit SHA through the hub API; files are fetched from
 * {@code /{repo}/resolve/{sha}/{file}} into {@code cache/hub/{owner}--{name}/{sha}/}, each written
 * to a temporary file and renamed, and the card records the source and the resolved SHA. A finished
 * download is never fetched again. The card comes from the caller (a local {@code card.json} naming
 * the hub source), the repository's own Tenbin {@code card.json}, or the repository's
 * sentence-transformers metadata.
 */
public final class HubDownloader {
  private static final Pattern REVISION = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._/-]{0,199}");
  private static final Pattern REPO =
      Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]*/[A-Za-z0-9][A-Za-z0-9._-]*");
  private static final Pattern SHA = Pattern.compile("[0-9a-f]{40}");

  private final HubClient hub;
  private final String endpoint;
  private final Path cacheDirectory;

  /** {@code OWNER/NAME@REVISION}; the revision is required so downloads are reproducible. */
  public record Reference(String repository, String revision) {
    public static Reference parse(String text) {
      int at = text.lastIndexOf('@');
      if (at <= 0 || at == text.length() - 1) {
        throw new InvalidInputException(
            "model_id",
            "hub models need a pinned revision: hub:OWNER/NAME@REVISION, got hub:" + text);
      }
      String repository = text.substring(0, at);
      if (!REPO.matcher(repository).matches()) {
        throw new InvalidInputException("model_id", "not a hub repository name: " + repository);
      }
      String revision = text.substring(at + 1);
      if (!REVISION.matcher(revision).matches() || revision.contains("..")) {
        throw new InvalidInputException(
            "model_id",
            "not a hub revision (a commit, branch or tag: letters, digits, '.', '_', '-', '/'): "
                + revision);
      }
      return new Reference(repository, text.substring(at + 1));
    }
  }

  /** The service's cache folder: downloads go to its {@code hub/}. */
  public Path cacheDirectory() {
    return cacheDirectory;
  }

  public HubDownloader(String endpoint, Path cacheDirectory, String token) {
    this(new HubAccess(endpoint, token), cacheDirectory);
  }

  public HubDownloader(HubAccess access, Path cacheDirectory) {
    this.hub = new HubClient(access);
    this.endpoint = hub.endpoint();
    this.cacheDirectory = cacheDirectory;
  }

  /**
   * Makes the {@code card.json} of a download from the repository's files: an encoder's {@link
   * ModelCard}, or a reranker's card (rerank-service), as a JSON object.
   */
  public interface CardMaker {
    /**
     * The card; the files its {@code onnx_file} and {@code tokenizer_file} name (defaults {@code
     * model.onnx} and {@code tokenizer.json}) are downloaded after, and its {@code source}, {@code
     * revision} and {@code resolved_sha} set to the download's.
     */
    ObjectNode card(String repository, RepositoryFiles files) throws IOException;
  }

  /** Where hub repositories keep an ONNX export, in the order they are looked for. */
  public static final List<String> ONNX_FILES = SentenceTransformersCard.ONNX_CANDIDATES;

  /** The folder holding the downloaded model (card.json, ONNX, tokenizer). */
  public Path fetch(Reference reference) {
    return fetch(reference, (ModelCard) null);
  }

  /**
   * The folder holding the downloaded model. The card is, in order: {@code given} (a local card
   * naming this hub source), the repository's {@code card.json}, or one read from its
   * sentence-transformers metadata ({@link SentenceTransformersCard}).
   */
  public Path fetch(Reference reference, ModelCard given) {
    return fetch(
        reference,
        (repository, files) -> {
          ModelCard card = given;
          if (card == null && files.fetch("card.json")) {
            card = LocalModelDirectory.readCard(folderOf(files));
          }
          if (card == null) {
            card = SentenceTransformersCard.derive(repository, files);
          } else {
            // The sentence-transformers files, where the repository has them, so that loading
            // checks the card against them (CardCheck).
            SentenceTransformersCard.read(files);
          }
          return LocalModelDirectory.JSON.valueToTree(card);
        });
  }

  /** The folder a {@link RepositoryFiles} of this downloader writes to. */
  private static Path folderOf(RepositoryFiles files) {
    return ((Download) files).folder();
  }

  /** One download's files: fetched into {@code folder} from the repository at {@code sha}. */
  private record Download(HubDownloader hub, String repository, String sha, Path folder)
      implements RepositoryFiles {
    @Override
    public Optional<JsonNode> json(String file) throws IOException {
      return hub.download(repository, sha, file, folder)
          ? Optional.of(LocalModelDirectory.JSON.readTree(folder.resolve(file).toFile()))
          : Optional.empty();
    }

    @Override
    public boolean fetch(String file) throws IOException {
      return hub.download(repository, sha, file, folder);
    }
  }

  /**
   * The folder holding a download whose card {@code cards} makes: {@code
   * cache/hub/{owner}--{name}/{sha}/}, reused once complete. Every file is written whole and then
   * renamed into place; {@code .complete} is written last.
   */
  public Path fetch(Reference reference, CardMaker cards) {
    String sha =
        SHA.matcher(reference.revision()).matches() ? reference.revision() : resolve(reference);
    Path folder =
        cacheDirectory
            .resolve("hub")
            .resolve(reference.repository().replace("/", "--"))
            .resolve(sha);
    if (Files.isRegularFile(folder.resolve("card.json"))
        && Files.exists(folder.resolve(".complete"))) {
      return folder;
    }
    String repository = reference.repository();
    try {
      Files.createDirectories(folder);
      ObjectNode card = cards.card(repository, new Download(this, repository, sha, folder));
      for (String file :
          List.of(
              card.path("onnx_file").asText("model.onnx"),
              card.path("tokenizer_file").asText("tokenizer.json"))) {
        if (!download(repository, sha, file, folder)) {
          throw new NotFoundException(
              "model_id", "hub repository " + repository + "@" + sha + " has no " + file);
        }
      }
      card.put("source", "hub:" + repository + "@" + reference.revision());
      card.put("revision", reference.revision());
      card.put("resolved_sha", sha);
      LocalModelDirectory.JSON
          .writerWithDefaultPrettyPrinter()
          .writeValue(folder.resolve("card.json").toFile(), card);
      Files.writeString(folder.resolve(".complete"), sha);
      return folder;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot download " + repository + "@" + sha, e);
    }
  }

  /** The commit SHA a branch or tag points to now. */
  String resolve(Reference reference) {
    try {
      return hub.revision(
              HubClient.RepositoryKind.MODEL, reference.repository(), reference.revision())
          .sha();
    } catch (HubClient.HubStatusException e) {
      throw failure(e);
    } catch (UncheckedIOException e) {
      throw unreachable(e);
    }
  }

  /** Downloads one file (written whole, then renamed into place); false when the hub has none. */
  private boolean download(String repository, String sha, String file, Path folder) {
    Path base = folder.toAbsolutePath().normalize();
    Path target = base.resolve(file).normalize();
    if (!target.startsWith(base)) {
      throw new InvalidInputException("model_id", "file name outside the model folder: " + file);
    }
    if (Files.exists(target)) {
      return true;
    }
    try {
      return hub.download(HubClient.RepositoryKind.MODEL, repository, sha, file, target);
    } catch (HubClient.HubStatusException e) {
      throw failure(e);
    } catch (UncheckedIOException e) {
      throw unreachable(e);
    }
  }

  /** A hub answer other than 2xx: NOT_FOUND naming {@code model_id} for a 404. */
  private RuntimeException failure(HubClient.HubStatusException e) {
    if (e.status() == 404) {
      return new NotFoundException("model_id", "the hub has no " + e.url());
    }
    return new IllegalStateException(
        e.getMessage()
            + " (the hub is "
            + endpoint
            + "; --hub-endpoint, env HF_ENDPOINT, names another)");
  }

  /** The hub not reached: why, and how to work offline. */
  private UncheckedIOException unreachable(UncheckedIOException e) {
    return new UncheckedIOException(
        e.getMessage()
            + ": "
            + FailureReasons.of(e.getCause())
            + ". The hub is "
            + endpoint
            + " (--hub-endpoint, env HF_ENDPOINT, names another hub or a mirror). To work"
            + " offline, pin the model's revision to a commit SHA already downloaded under "
            + cacheDirectory.resolve("hub")
            + " (no request is made then), or give a local model folder.",
        e.getCause());
  }
}
