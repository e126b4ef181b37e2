package dev.tenbin.model;

import dev.tenbin.model.hub.HubAccess;
import dev.tenbin.model.hub.HubDownloader;
import java.nio.file.Path;

/**
 * Where a service's models come from: a folder of local models, a cache folder for hub downloads,
 * and the hub itself. One record for the encoder and the rerank service, built by {@link
 * ModelSourceOptions} from their flags, or by {@link #embedded} for the services a process starts
 * for itself.
 *
 * @param modelsDirectory folder of local models, {@code <id>/card.json}
 * @param cacheDirectory hub downloads (and the encoder's LightRetriever caches)
 * @param hub the Hugging Face hub models are downloaded from, and its token (a fake hub in tests)
 */
public record ModelSources(Path modelsDirectory, Path cacheDirectory, HubAccess hub) {
  public ModelSources {
    if (modelsDirectory == null) {
      throw new IllegalArgumentException("--models-dir is required");
    }
    if (cacheDirectory == null) {
      throw new IllegalArgumentException("--cache-dir is required");
    }
    if (hub == null) {
      throw new IllegalArgumentException("a hub endpoint (--hub-endpoint) is required");
    }
  }

  /** These folders, with the hub of this process's environment. */
  public static ModelSources embedded(Path modelsDirectory, Path cacheDirectory) {
    return new ModelSources(modelsDirectory, cacheDirectory, HubAccess.fromEnvironment());
  }

  /** The same sources with another hub base URL (a mirror, or a fake hub in tests). */
  public ModelSources withHubEndpoint(String endpoint) {
    return new ModelSources(modelsDirectory, cacheDirectory, hub.withEndpoint(endpoint));
  }

  /** A downloader from the hub into the cache folder. */
  public HubDownloader downloader() {
    return hub.downloader(cacheDirectory);
  }
}
