package dev.tenbin.client.encoder;

import java.util.List;

/**
 * Full-width dense vectors of texts, in input order, as the encoder service computes them (the
 * model's card decides prompts, max length and width). {@link EncoderClient#denseEncoding()} calls
 * the service; a caller that keeps an embedding cache in front of the same service (the
 * orchestrator) passes its own, so a text already encoded in the job is read back, not encoded
 * again.
 */
@FunctionalInterface
public interface DenseEncoding {
  /** The vectors of {@code texts}, encoded in the query role or the document role. */
  List<float[]> encodeDense(String modelId, List<String> texts, boolean query);
}
