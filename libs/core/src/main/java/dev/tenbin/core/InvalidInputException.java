package dev.tenbin.core;

/**
 * The request itself is wrong: a value is missing, malformed or out of range. {@link #tooLarge}
 * marks a request over a size limit (too many texts, too many characters): the same status over
 * gRPC, 413 over HTTP.
 */
public final class InvalidInputException extends TenbinException {
  private final boolean tooLarge;

  public InvalidInputException(String field, String message) {
    this(field, message, false);
  }

  private InvalidInputException(String field, String message, boolean tooLarge) {
    super(field, message);
    this.tooLarge = tooLarge;
  }

  /** A request over a size limit (texts per request, characters per text or per request). */
  public static InvalidInputException tooLarge(String field, String message) {
    return new InvalidInputException(field, message, true);
  }

  /** Whether the request was refused for its size, not for its content. */
  public boolean isTooLarge() {
    return tooLarge;
  }
}
