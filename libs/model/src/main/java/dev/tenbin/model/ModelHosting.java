package dev.tenbin.model;

import dev.tenbin.model.onnx.OnnxModel;
import java.nio.file.Path;
import java.util.LinkedHashSet;
import java.util.List;

/**
 * What a service that hosts models (the encoder, the rerank service) is told about them: where they
 * come from, which may be loaded and when an unused one is unloaded, and how ONNX Runtime runs
 * them. One record for both services, checked once.
 *
 * @param sources the local models folder, the hub downloads folder and the hub
 * @param policy which models may be loaded, and how long an unused one stays loaded
 * @param runtime ONNX Runtime threads, execution provider, device and arena limit
 * @param preload models loaded when the service starts (before it says it is ready) and never
 *     unloaded for idleness; each must be allowed by {@code policy}
 */
public record ModelHosting(
    ModelSources sources,
    ModelPolicy policy,
    OnnxModel.RuntimeOptions runtime,
    List<String> preload) {
  public ModelHosting {
    if (sources == null) {
      throw new IllegalArgumentException("model sources (--models-dir, --cache-dir) are required");
    }
    if (policy == null) {
      throw new IllegalArgumentException("a model policy is required");
    }
    if (runtime == null) {
      runtime = OnnxModel.RuntimeOptions.cpu(Runtime.getRuntime().availableProcessors());
    }
    preload = preload == null ? List.of() : List.copyOf(new LinkedHashSet<>(preload));
  }

  /** Hosting that preloads nothing. */
  public ModelHosting(ModelSources sources, ModelPolicy policy, OnnxModel.RuntimeOptions runtime) {
    this(sources, policy, runtime, List.of());
  }

  /**
   * For the services a process starts for itself (and tests): these folders with the environment's
   * hub, every model allowed and none unloaded, on the CPU with every core.
   */
  public static ModelHosting embedded(Path modelsDirectory, Path cacheDirectory) {
    return new ModelHosting(
        ModelSources.embedded(modelsDirectory, cacheDirectory), ModelPolicy.allowAll(), null);
  }

  /** The same hosting with other sources. */
  public ModelHosting withSources(ModelSources value) {
    return new ModelHosting(value, policy, runtime, preload);
  }

  /** The same hosting with another policy. */
  public ModelHosting withPolicy(ModelPolicy value) {
    return new ModelHosting(sources, value, runtime, preload);
  }

  /** The same hosting with another ONNX Runtime setting. */
  public ModelHosting withRuntime(OnnxModel.RuntimeOptions value) {
    return new ModelHosting(sources, policy, value, preload);
  }

  /** The same hosting preloading these models. */
  public ModelHosting withPreload(List<String> ids) {
    return new ModelHosting(sources, policy, runtime, ids);
  }
}
