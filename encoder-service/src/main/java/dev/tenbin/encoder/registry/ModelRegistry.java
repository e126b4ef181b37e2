package dev.tenbin.encoder.registry;

import dev.tenbin.core.NotFoundException;
import dev.tenbin.model.FileStamps;
import dev.tenbin.model.ModelPolicy;
import dev.tenbin.model.card.LocalModelDirectory;
import dev.tenbin.model.card.ModelCard;
import dev.tenbin.model.card.ModelFiles;
import dev.tenbin.model.hub.HubDownloader;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Finds a model's files by id: the built-in models first, then a folder of the same name under the
 * models directory (its {@code card.json} may name a hub source for the files), then {@code
 * hub:OWNER/NAME@REVISION}, downloaded once into the cache.
 */
public final class ModelRegistry {
  private final Path modelsDirectory;
  private final HubDownloader hub;

  public ModelRegistry(Path modelsDirectory, HubDownloader hub) {
    this.modelsDirectory = modelsDirectory;
    this.hub = hub;
  }

  public ModelFiles load(String id) {
    if (id == null || id.isBlank()) {
      throw new dev.tenbin.core.InvalidInputException("model_id", "model_id is required");
    }
    Optional<ModelFiles> builtin = BuiltinModels.load(id);
    if (builtin.isPresent()) {
      return builtin.get();
    }
    if (id.startsWith("hub:")) {
      return LocalModelDirectory.load(hub.fetch(HubDownloader.Reference.parse(id.substring(4))));
    }
    Path local = localFolder(id);
    if (local != null) {
      ModelCard card = LocalModelDirectory.readCard(local);
      if (card.source().startsWith("hub:") && !Files.exists(local.resolve(card.onnxFile()))) {
        return fromHub(card);
      }
      return LocalModelDirectory.load(local);
    }
    throw new NotFoundException(
        "model_id",
        "unknown model '"
            + id
            + "': built-in models are "
            + BuiltinModels.ids()
            + (modelsDirectory == null
                ? ""
                : "; local models live in " + modelsDirectory + "/<id>/card.json")
            + "; hub models are named hub:OWNER/NAME@REVISION");
  }

  /**
   * A cheap identity of the files {@link #load} would read for {@code id}: each file's path, size
   * and modification time, taken without reading them. Empty where there is none to take: a hub
   * model (its files are fetched by revision), a local card whose files are still on the hub, an
   * unknown id, files modified moments ago ({@link FileStamps}).
   */
  public Optional<String> stamp(String id) {
    if (id == null || id.isBlank() || id.startsWith("hub:")) {
      return Optional.empty();
    }
    if (BuiltinModels.isBuiltin(id)) {
      return BuiltinModels.stamp(id);
    }
    Path local = localFolder(id);
    if (local == null) {
      return Optional.empty();
    }
    try {
      ModelCard card = LocalModelDirectory.readCard(local);
      if (card.source().startsWith("hub:") && !Files.exists(local.resolve(card.onnxFile()))) {
        return Optional.empty();
      }
      return FileStamps.ofFolder(local);
    } catch (RuntimeException | IOException e) {
      return Optional.empty();
    }
  }

  /** A local card whose files live on the hub: the card as written, the files downloaded once. */
  private ModelFiles fromHub(ModelCard card) {
    Path folder = hub.fetch(HubDownloader.Reference.parse(card.source().substring(4)), card);
    ModelFiles downloaded = LocalModelDirectory.load(folder);
    ModelCard origin = downloaded.card();
    return new ModelFiles(
        card.withOrigin(origin.source(), origin.revision(), origin.resolvedSha()),
        downloaded.onnx(),
        downloaded.tokenizerJson());
  }

  /**
   * Where a model id points: a built-in model, a hub repository, or a folder in the models
   * directory.
   */
  public static ModelPolicy.Source source(String id) {
    if (BuiltinModels.isBuiltin(id)) {
      return ModelPolicy.Source.BUILTIN;
    }
    return id.startsWith("hub:") ? ModelPolicy.Source.HUB : ModelPolicy.Source.LOCAL;
  }

  /** One spelling per model: built-in ids are case-insensitive and canonically lower case. */
  public static String canonicalId(String id) {
    return BuiltinModels.isBuiltin(id) ? id.toLowerCase(java.util.Locale.ROOT) : id;
  }

  /** Cards of the local and built-in models (a local card may name its files on the hub). */
  public List<ModelCard> available() {
    List<ModelCard> cards = new ArrayList<>();
    for (String id : BuiltinModels.ids()) {
      if (BuiltinModels.class.getClassLoader().getResource(BuiltinModels.card(id).onnxFile())
          != null) {
        cards.add(BuiltinModels.card(id));
      }
    }
    if (modelsDirectory != null && Files.isDirectory(modelsDirectory)) {
      try (var dirs = Files.list(modelsDirectory)) {
        dirs.filter(dir -> Files.isRegularFile(dir.resolve("card.json")))
            .sorted()
            .forEach(dir -> cards.add(LocalModelDirectory.readCard(dir)));
      } catch (java.io.IOException e) {
        throw new java.io.UncheckedIOException(e);
      }
    }
    return cards;
  }

  private Path localFolder(String id) {
    if (modelsDirectory == null || id.contains("/") || id.contains("..")) {
      return null;
    }
    Path folder = modelsDirectory.resolve(id);
    return Files.isRegularFile(folder.resolve("card.json")) ? folder : null;
  }
}
