package dev.tenbin.eval.job;

import dev.tenbin.client.encoder.EncoderClient;
import dev.tenbin.core.PreconditionException;
import dev.tenbin.eval.retrieval.EncodeProgress;
import dev.tenbin.proto.encoder.v1.LightCacheDtype;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.util.HashSet;
import java.util.Set;
import java.util.function.Supplier;

/**
 * Has the encoder build a LightRetriever token-embedding cache the first time a job needs it
 * ({@code BuildLightCache}, the same build as {@code tenbin light build}, resumable); the encoder
 * leaves a complete cache alone. Works the same on the embedded and on a remote encoder. It runs
 * before the work item encodes any document, so a cache that cannot be built fails the item at once
 * with the {@code tenbin light build} command to run.
 */
final class LightCaches {
  private final Supplier<EncoderClient> encoder;
  private final Set<String> ready = new HashSet<>();

  LightCaches(Supplier<EncoderClient> encoder) {
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
    try {
      encoder
          .get()
          .buildLightCache(
              model,
              LightCacheDtype.LIGHT_CACHE_DTYPE_FP32,
              dimensions,
              256,
              (done, vocabulary) -> progress.update(what, done, vocabulary));
    } catch (StatusRuntimeException e) {
      if (e.getStatus().getCode() == Status.Code.CANCELLED) {
        throw e;
      }
      throw missing(model, dimensions, e);
    }
    ready.add(key);
  }

  /**
   * The error of a cache that is missing and could not be built here, before any document is
   * encoded: what failed, and the command that builds it.
   */
  static PreconditionException missing(String model, int dimensions, StatusRuntimeException e) {
    String description = e.getStatus().getDescription();
    return new PreconditionException(
        "light:" + model,
        "the LightRetriever token-embedding cache of "
            + model
            + (dimensions > 0 ? " at width " + dimensions : "")
            + " is missing and the encoder could not build it ("
            + e.getStatus().getCode()
            + (description == null ? "" : ": " + description)
            + "); nothing was encoded. Build it first: tenbin light build --model "
            + model
            + (dimensions > 0 ? " --dimensions " + dimensions : "")
            + " (with --encoder-endpoint and --cache-dir as for this run)");
  }
}
