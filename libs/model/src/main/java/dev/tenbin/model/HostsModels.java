package dev.tenbin.model;

import dev.tenbin.model.hub.HubAccess;
import dev.tenbin.model.onnx.OnnxModel;
import java.nio.file.Path;

/**
 * The configuration of a service that hosts models (the encoder, the rerank service): its {@link
 * ModelHosting} and the accessors every such service reads it through.
 */
public interface HostsModels {
  /** Where models come from, which may be loaded, how they run and which are preloaded. */
  ModelHosting hosting();

  /** Where models come from. */
  default ModelSources sources() {
    return hosting().sources();
  }

  /** Which models may be loaded, and when an unused one is unloaded. */
  default ModelPolicy models() {
    return hosting().policy();
  }

  /** How ONNX Runtime runs the models. */
  default OnnxModel.RuntimeOptions runtime() {
    return hosting().runtime();
  }

  /** Folder of local models ({@code <id>/card.json}, ONNX, tokenizer). */
  default Path modelsDirectory() {
    return sources().modelsDirectory();
  }

  /** Hub downloads (and, for the encoder, LightRetriever caches). */
  default Path cacheDirectory() {
    return sources().cacheDirectory();
  }

  /** The hub models are downloaded from. */
  default HubAccess hub() {
    return sources().hub();
  }
}
