package dev.tenbin.eval.job;

import dev.tenbin.encoder.EncoderCore;
import dev.tenbin.encoder.EncoderServiceConfig;
import dev.tenbin.encoder.light.TokenEmbeddingCache;
import dev.tenbin.encoder.LoadedModel;
import dev.tenbin.eval.retrieval.EncodeProgress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;

/**
 * Builds a LightRetriever token-embedding cache the first time a job on the embedded encoder needs
 * it (the same build as {@code tenbin light build}, resumable); a complete cache is left alone.
 */
final class LightCaches {
  private final Path modelsDirectory;
  private final Path cacheDirectory;
  private final Set<String> ready = new HashSet<>();

  LightCaches(Path modelsDirectory, Path cacheDirectory) {
    this.modelsDirectory = modelsDirectory;
    this.cacheDirectory = cacheDirectory;
  }

  synchronized void ensure(String model, EncodeProgress progress) {
    if (ready.contains(model)) {
      return;
    }
    try (EncoderCore core = new EncoderCore(EncoderServiceConfig.embedded(modelsDirectory, cacheDirectory))) {
      LoadedModel loaded = core.model(model);
      Path folder = TokenEmbeddingCache.folder(cacheDirectory, loaded.card());
      if (!complete(folder)) {
        int vocabulary = TokenEmbeddingCache.vocabularySize(loaded.tokenizerJson());
        TokenEmbeddingCache.build(
            loaded, folder, 2048, 256, 0, false,
            done -> progress.update("LightRetriever cache of " + model, done, vocabulary));
      }
    }
    ready.add(model);
  }

  private static boolean complete(Path folder) {
    try {
      return Files.isDirectory(folder) && TokenEmbeddingCache.load(folder) != null;
    } catch (RuntimeException e) {
      return false;
    }
  }
}
