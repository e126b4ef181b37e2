package dev.tenbin.model.tokenizer;

/**
 * What DJL reads, as environment variables or system properties, when its native Hugging Face
 * tokenizer library loads: set once, before the first tokenizer is made, by everything that makes
 * one (the encoder's and reranker's tokenizers, the position analysis' length tokenizer). An
 * operator's own setting always wins. Plain system properties: no DJL class is touched here.
 */
public final class DjlSettings {
  /** DJL's opt-out of its usage tracking. */
  public static final String TRACKING_SWITCH = "OPT_OUT_TRACKING";

  /**
   * DJL's choice of its native tokenizer build. On a machine with CUDA, DJL picks a CUDA build
   * ({@code cu122-90}, ...) that its jar does not carry and downloads it from publish.djl.ai, which
   * fails offline (found on an H100 node: no model loaded there). Tokenization never uses CUDA.
   */
  public static final String FLAVOR_SWITCH = "RUST_FLAVOR";

  private DjlSettings() {}

  /** Applies the settings; idempotent. */
  public static synchronized void apply() {
    // (DJL's CUDA probe, which warns on machines with the CUDA toolkit but no usable GPU, is held
    // back by the servers' logging setup, dev.tenbin.rpc.ProcessLogging.)
    // DJL "calls home" when a tokenizer is created: an HTTP request to the EC2 metadata address
    // (169.254.169.254) and a telemetry download from S3. A service must not talk to anyone it was
    // not told to: opt out, unless the operator set the switch themselves.
    defaultSwitch(TRACKING_SWITCH, "true");
    // The CPU build inside DJL's jar, also on GPU machines.
    defaultSwitch(FLAVOR_SWITCH, "cpu");
  }

  private static void defaultSwitch(String name, String value) {
    if (System.getenv(name) == null) {
      defaultProperty(name, value);
    }
  }

  private static void defaultProperty(String name, String value) {
    if (System.getProperty(name) == null) {
      System.setProperty(name, value);
    }
  }
}
