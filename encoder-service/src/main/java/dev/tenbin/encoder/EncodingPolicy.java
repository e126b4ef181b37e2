package dev.tenbin.encoder;

/**
 * How a loaded model's forward passes are formed, chosen at load from its {@link BatchInvariance}
 * probe. No request, batch size or configuration changes it: it follows from the model and the
 * execution provider alone.
 */
public enum EncodingPolicy {
  /**
   * Inputs share forward passes (token-budget batching across requests): the model gave the same
   * bits for a text alone and inside mixed, padded passes.
   */
  BATCHED("batched"),

  /**
   * Every input runs in a forward pass of its own, unpadded: the model's output for a text depends
   * on the other inputs of its pass (int8 graphs quantize activations per pass), so sharing passes
   * would make a text's vector depend on what else was being encoded.
   */
  ONE_TEXT_PER_PASS("one-text-per-pass");

  private final String label;

  EncodingPolicy(String label) {
    this.label = label;
  }

  /** The policy's name in cache keys, fingerprints and listings: "batched", "one-text-per-pass". */
  public String label() {
    return label;
  }
}
