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

  synchronized void ensure(String model, EncodeProgress progress) {
    if (ready.contains(model)) {
      return;
    }
    EncoderClient.of(encoder.get())
        .buildLightCache(
            model,
            LightCacheDtype.LIGHT_CACHE_DTYPE_FP32,
            256,
            (done, vocabulary) ->
                progress.update("LightRetriever cache of " + model, done, vocabulary));
    ready.add(model);
  }
}
