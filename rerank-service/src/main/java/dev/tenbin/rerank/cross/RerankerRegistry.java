package dev.tenbin.rerank.cross;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tenbin.core.InvalidInputException;
import dev.tenbin.core.NotFoundException;
import dev.tenbin.core.PreconditionException;
import dev.tenbin.model.FileStamps;
import dev.tenbin.model.ModelCache;
import dev.tenbin.model.ModelInfoCache;
import dev.tenbin.model.ModelPolicy;
import dev.tenbin.model.card.LocalModelDirectory;
import dev.tenbin.model.card.ModelFiles;
import dev.tenbin.model.hub.HubDownloader;
import dev.tenbin.model.onnx.OnnxModel;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Cross-encoders by id, through the same model-card mechanism as the encoder: a folder {@code
 * models/<id>/} (card.json with the reranker fields, model.onnx, tokenizer.json; or a card whose
 * {@code source} names a hub repository) or {@code hub:OWNER/NAME@REVISION} downloaded once at a
 * pinned revision, its head read from the repository's {@code config.json} when it has no Tenbin
 * card ({@link HubRerankerCard}). Which ids may be loaded, and when an unused one is unloaded, is
 * the {@link ModelPolicy}'s to say (sources {@code local} and {@code hub}); a caller holds its
 * cross-encoder ({@link #acquire}) while it scores.
 *
 * <p>What {@link #info} answers for a cross-encoder of the models folder is remembered in the cache
 * folder ({@link ModelInfoCache}, kind {@code reranker}) under the stamp of its files, so a later
 * process (a warm rerun planning its cells) gets the same answer without loading the model; a hub
 * cross-encoder, or a card whose files are on the hub, is loaded to answer.
 */
public final class RerankerRegistry implements AutoCloseable {
  private static final ObjectMapper JSON =
      new ObjectMapper().configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false);

  /**
   * What GetRerankerInfo reports: the card, the output's dtype and the SHA-256 of the model's files
   * ({@link dev.tenbin.model.card.ModelDigest}).
   */
  public record Info(RerankerCard card, String dtype, String modelSha256) {
    static Info of(CrossEncoder model) {
      return new Info(model.card(), model.dtype(), model.modelSha256());
    }
  }

  private final Path modelsDirectory;
  private final HubDownloader hub;
  private final OnnxModel.RuntimeOptions runtime;
  private final int maxBatchTokens;
  private final ModelPolicy policy;
  private final ModelCache<CrossEncoder> loaded;

  /** Preloaded cross-encoders, held for good. */
  private final java.util.List<ModelCache<CrossEncoder>.Handle> pinned =
      new java.util.ArrayList<>();

  private final Map<String, Info> infos = new ConcurrentHashMap<>();
  private final Optional<ModelInfoCache<Info>> rememberedInfos;

  /** Every reranker allowed, none unloaded (the embedded service and tests). */
  public RerankerRegistry(
      Path modelsDirectory,
      HubDownloader hub,
      OnnxModel.RuntimeOptions runtime,
      int maxBatchTokens) {
    this(modelsDirectory, hub, runtime, maxBatchTokens, ModelPolicy.allowAll());
  }

  public RerankerRegistry(
      Path modelsDirectory,
      HubDownloader hub,
      OnnxModel.RuntimeOptions runtime,
      int maxBatchTokens,
      ModelPolicy policy) {
    this.modelsDirectory = modelsDirectory;
    this.hub = hub;
    this.runtime = runtime;
    this.maxBatchTokens = maxBatchTokens;
    this.policy = policy;
    this.rememberedInfos =
        hub == null || hub.cacheDirectory() == null
            ? Optional.empty()
            : Optional.of(
                new ModelInfoCache<>(
                    hub.cacheDirectory(),
                    "reranker",
                    Info.class,
                    info ->
                        info.card() != null
                            && info.dtype() != null
                            && info.modelSha256() != null
                            && !info.modelSha256().isEmpty()));
    this.loaded =
        new ModelCache<>(
            "reranker",
            this::load,
            policy.idleUnload(),
            new ModelCache.Listener<>() {
              @Override
              public void loaded(String id, CrossEncoder model) {
                infos.put(id, Info.of(model));
              }

              @Override
              public void unloaded(String id, CrossEncoder model) {}
            });
  }

  /**
   * The cross-encoder, loaded if needed and held until the handle is closed. PERMISSION_DENIED
   * naming {@code model_id} when the policy does not allow it, NOT_FOUND when it is unknown.
   */
  public ModelCache<CrossEncoder>.Handle acquire(String id) {
    check(id);
    return loaded.acquire(id);
  }

  /**
   * Loads {@code id} (checked as {@link #acquire} checks it) and holds it until the registry
   * closes: a preloaded reranker is never unloaded for idleness.
   */
  public void pin(String id) {
    ModelCache<CrossEncoder>.Handle handle = acquire(id);
    synchronized (pinned) {
      pinned.add(handle);
    }
  }

  /**
   * The card and dtype of a reranker: as loaded, or as remembered in the cache folder from an
   * earlier load of the very same files; else it loads the model once, without keeping it held.
   */
  public Info info(String id) {
    check(id);
    Info known = infos.get(id);
    if (known != null) {
      return known;
    }
    Optional<Info> remembered = rememberedInfos.flatMap(cache -> cache.find(id, stamp(id)));
    if (remembered.isPresent()) {
      return remembered.get();
    }
    try (var handle = loaded.acquire(id)) {
      return Info.of(handle.model());
    }
  }

  /**
   * The cross-encoders this service could load without the network and is allowed to: folders of
   * {@code --models-dir} whose {@code card.json} names a score {@code head}, sorted by id. Nothing
   * is loaded; a card that cannot be read is left out.
   */
  public java.util.List<RerankerCard> available() {
    java.util.List<RerankerCard> cards = new java.util.ArrayList<>();
    if (modelsDirectory == null || !Files.isDirectory(modelsDirectory)) {
      return cards;
    }
    try (var folders = Files.list(modelsDirectory)) {
      for (Path folder : folders.sorted().toList()) {
        Path cardFile = folder.resolve("card.json");
        String id = folder.getFileName().toString();
        if (!Files.isRegularFile(cardFile) || !policy.allows(ModelPolicy.Source.LOCAL, id)) {
          continue;
        }
        try {
          com.fasterxml.jackson.databind.JsonNode json = JSON.readTree(cardFile.toFile());
          if (json != null && json.has("head")) {
            RerankerCard card = JSON.treeToValue(json, RerankerCard.class);
            cards.add(card.id() == null || card.id().isBlank() ? withId(card, id) : card);
          }
        } catch (IOException | IllegalArgumentException e) {
          // Not a reranker card (or a damaged one): GetRerankerInfo of that id reports why.
        }
      }
    } catch (IOException e) {
      throw new java.io.UncheckedIOException("cannot list " + modelsDirectory, e);
    }
    return cards;
  }

  private static RerankerCard withId(RerankerCard card, String id) {
    return new RerankerCard(
        id,
        card.head(),
        card.maxLength(),
        card.promptTemplate(),
        card.yesToken(),
        card.noToken(),
        card.revision(),
        card.resolvedSha());
  }

  /** The runtime the cross-encoders run on (provider, device, threads). */
  public OnnxModel.RuntimeOptions runtime() {
    return runtime;
  }

  /**
   * The cross-encoders loaded by hub id ({@code hub:OWNER/NAME@REVISION}) since start, by that id,
   * sorted: a hub id is not in the models folder, so {@link #available} does not list it.
   */
  public java.util.SortedMap<String, Info> hubLoaded() {
    java.util.SortedMap<String, Info> hubs = new java.util.TreeMap<>();
    infos.forEach(
        (id, info) -> {
          if (id.startsWith("hub:")) {
            hubs.put(id, info);
          }
        });
    return hubs;
  }

  /** Ids of the cross-encoders loaded now. */
  public Set<String> loadedIds() {
    return loaded.loadedIds();
  }

  /**
   * Unloads the cross-encoders idle for the policy's idle time now (a background task does it too).
   */
  public java.util.List<String> unloadIdle() {
    return loaded.unloadIdle();
  }

  private void check(String id) {
    if (id == null || id.isBlank()) {
      throw new InvalidInputException("model_id", "model_id is required");
    }
    policy.check(
        id.startsWith("hub:") ? ModelPolicy.Source.HUB : ModelPolicy.Source.LOCAL, id, "model_id");
  }

  /**
   * A cheap identity of the files {@link #load} would read for {@code id} ({@link FileStamps}):
   * empty for a hub id, a card whose files are on the hub, an unknown id, or files modified moments
   * ago.
   */
  private Optional<String> stamp(String id) {
    Path folder = localFolder(id);
    if (folder == null) {
      return Optional.empty();
    }
    try {
      if (readCard(id, folder).path("source").asText("").startsWith("hub:")) {
        return Optional.empty();
      }
      return FileStamps.ofFolder(folder);
    } catch (IOException | RuntimeException e) {
      return Optional.empty();
    }
  }

  /** The folder of a local reranker id in the models folder, or null. */
  private Path localFolder(String id) {
    if (modelsDirectory == null || id.startsWith("hub:") || id.contains("/") || id.contains("..")) {
      return null;
    }
    Path folder = modelsDirectory.resolve(id);
    return Files.isRegularFile(folder.resolve("card.json")) ? folder : null;
  }

  private CrossEncoder load(String id) {
    // The stamp is taken before the files are read: files replaced while loading leave an entry
    // that no later stamp matches (so the model is loaded again), never a stale answer.
    Optional<String> stamp = stamp(id);
    CrossEncoder model = read(id);
    rememberedInfos.ifPresent(cache -> cache.remember(id, stamp, Info.of(model)));
    return model;
  }

  private CrossEncoder read(String id) {
    Path folder;
    JsonNode cardJson;
    if (id.startsWith("hub:")) {
      folder = hubFolder(id, id.substring(4), null);
      cardJson = readCard(id, folder);
    } else {
      folder = localFolder(id);
      if (folder == null) {
        throw new NotFoundException(
            "model_id",
            "unknown reranker '"
                + id
                + "': put model.onnx, tokenizer.json and card.json in "
                + modelsDirectory
                + "/"
                + id
                + ", name a hub:OWNER/NAME@REVISION, or use dense:MODEL,"
                + " sparse:MODEL or multivector:MODEL");
      }
      cardJson = readCard(id, folder);
      String source = cardJson.path("source").asText("");
      if (source.startsWith("hub:")) {
        // A local card naming its files on the hub: the files from the hub cache, the card (head,
        // length, prompt) from here, with the commit the download resolved to.
        folder = hubFolder(id, source.substring(4), cardJson);
        ObjectNode local = cardJson.deepCopy();
        local.put("resolved_sha", readCard(id, folder).path("resolved_sha").asText(""));
        cardJson = local;
      }
    }
    ModelFiles files = LocalModelDirectory.load(folder);
    RerankerCard card;
    try {
      card = JSON.treeToValue(cardJson, RerankerCard.class);
    } catch (IOException | IllegalArgumentException e) {
      throw new InvalidInputException(
          "model_id", "cannot read the reranker card of " + id + ": " + e.getMessage());
    }
    return new CrossEncoder(card, files, runtime, maxBatchTokens);
  }

  /**
   * The hub download of a cross-encoder ({@link HubRerankerCard}), in the encoders' cache with the
   * same pinned revision, resolved SHA and whole-file writes ({@link HubDownloader}).
   */
  private Path hubFolder(String id, String reference, JsonNode localCard) {
    Path folder =
        hub.fetch(HubDownloader.Reference.parse(reference), new HubRerankerCard(localCard));
    if (!readCard(id, folder).has("head")) {
      throw new PreconditionException(
          "model_id",
          "hub:"
              + reference
              + " is in the model cache as an embedding model (its card has no score head); "
              + "write a reranker card.json naming it as its source");
    }
    return folder;
  }

  private static JsonNode readCard(String id, Path folder) {
    try {
      JsonNode json = JSON.readTree(folder.resolve("card.json").toFile());
      if (json == null || !json.isObject()) {
        throw new IOException("not a JSON object");
      }
      return json;
    } catch (IOException e) {
      throw new InvalidInputException(
          "model_id", "cannot read the reranker card of " + id + ": " + e.getMessage());
    }
  }

  /**
   * Closes every cross-encoder; a scoring call in flight ends after its running pass (UNAVAILABLE).
   */
  @Override
  public void close() {
    synchronized (pinned) {
      pinned.forEach(ModelCache.Handle::close);
      pinned.clear();
    }
    loaded.close();
  }
}
