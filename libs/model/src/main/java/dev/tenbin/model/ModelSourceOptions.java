package dev.tenbin.model;

import dev.tenbin.model.hub.HubAccess;
import java.nio.file.Path;
import picocli.CommandLine.Option;

/**
 * The flags a model-loading server shares ({@code --models-dir}, {@code --cache-dir}, {@code
 * --hub-endpoint}, with their environment variables), as a picocli mixin that builds {@link
 * ModelSources}; the hub token comes from {@code HF_TOKEN} ({@link HubAccess#fromEnvironment()}).
 */
public final class ModelSourceOptions {
  @Option(
      names = "--models-dir",
      paramLabel = "DIR",
      defaultValue = "${env:TENBIN_MODELS_DIR:-models}",
      description =
          "Folder of local models, <id>/card.json (env TENBIN_MODELS_DIR; default ${DEFAULT-VALUE}).")
  Path modelsDirectory;

  @Option(
      names = "--cache-dir",
      paramLabel = "DIR",
      defaultValue = "${env:TENBIN_CACHE_DIR:-.tenbin/cache}",
      description =
          "Hub downloads, and the encoder's LightRetriever caches (env TENBIN_CACHE_DIR; default"
              + " ${DEFAULT-VALUE}).")
  Path cacheDirectory;

  @Option(
      names = "--hub-endpoint",
      paramLabel = "URL",
      defaultValue = "${env:HF_ENDPOINT:-https://huggingface.co}",
      description =
          "Hugging Face hub base URL (env HF_ENDPOINT; default ${DEFAULT-VALUE}); a token for gated models"
              + " comes from env HF_TOKEN.")
  String hubEndpoint;

  /** The flags as checked sources; a missing or bad value names its flag. */
  public ModelSources toSources() {
    return new ModelSources(
        modelsDirectory, cacheDirectory, HubAccess.fromEnvironment().withEndpoint(hubEndpoint));
  }
}
