package dev.tenbin.core;

/**
 * A failure of a service core that a caller can act on. Each subclass maps to one gRPC status code
 * at the service boundary; {@link #field()} names the offending request field when there is one.
 */
public abstract class TenbinException extends RuntimeException {
  private final String field;

  protected TenbinException(String field, String message) {
    super(message);
    this.field = field;
  }

  protected TenbinException(String field, String message, Throwable cause) {
    super(message, cause);
    this.field = field;
  }

  /** The request field this failure is about, or {@code null}. */
  public String field() {
    return field;
  }
}
