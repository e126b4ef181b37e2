package dev.tenbin.core;

/**
 * A failure of a service core that a caller can act on. Each subclass maps to one gRPC status code
 * at the service boundary; {@link #field()} names the offending request field when there is one.
 */
public abstract class TenbinException extends RuntimeException {
  private String field;

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

  /**
   * This failure, its field named from {@code parent}: "texts[3]" becomes "request.texts[3]" when
   * the request that failed is embedded as {@code request} in the one the client sent. A failure
   * about no field stays as it is.
   */
  public TenbinException within(String parent) {
    if (field != null) {
      field = parent + "." + field;
    }
    return this;
  }
}
