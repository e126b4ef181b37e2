package dev.tenbin.drill;

import java.util.Locale;

/** The four services a drill runs as separate processes, in the order they start. */
public enum TenbinService {
  INDEX,
  ENCODER,
  RERANK,
  EVAL;

  /** The name as the command line and the logs spell it: index, encoder, rerank, eval. */
  public String label() {
    return name().toLowerCase(Locale.ROOT);
  }

  /** The service named {@code value}; an error naming {@code option} when it is none of them. */
  static TenbinService parse(String value, String option) {
    for (TenbinService service : values()) {
      if (service.label().equals(value.toLowerCase(Locale.ROOT))) {
        return service;
      }
    }
    throw new IllegalArgumentException(
        option + " must be index, encoder, rerank or eval, got '" + value + "'");
  }
}
