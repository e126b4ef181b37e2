package dev.tenbin.eval.job;

import dev.tenbin.encoder.client.EncoderClient;
import dev.tenbin.eval.retrieval.EncodeProgress;
import dev.tenbin.proto.encoder.v1.LightCacheDtype;
import io.grpc.Channel;
import java.util.HashSet;
import java.util.Set;
import java.util.function.Supplier;

/**
 * Has the encoder build a LightRetriever token-embedding cache the first time a job needs it
 * ({@code BuildLightCache}, the same build as {@code tenbin light build}, resumable); the encoder
 * leaves a complete cache alone. Works the same on the embedded and on a remote encoder.
 */
final class LightCaches {
  private final Supplier<? extends Channel> encoder;
  private final Set<String> ready = new HashSet<>();

  LightCaches(Supplier<? extends Channel> encoder) {
    this.encoder = encoder;
  }

  /** The cache of {@code model} at {@code dimensions} (0: the model's width), built if missing. */
  synchronized void ensure(String model, int dimensions, EncodeProgress progress) {
    String key = model + "@" + dimensions;
    if (ready.contains(key)) {
      return;
    }
    String what =
        "LightRetriever cache of " + model + (dimensions > 0 ? " at width " + dimensions : "");
    EncoderClient.of(encoder.get())
        .buildLightCache(
            model,
            LightCacheDtype.LIGHT_CACHE_DTYPE_FP32,
            dimensions,
            256,
            (done, vocabulary) -> progress.update(what, done, vocabulary));
    ready.add(key);
  }
}
