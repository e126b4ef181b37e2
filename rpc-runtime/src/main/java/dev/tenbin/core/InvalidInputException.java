package dev.tenbin.core;

/** The request itself is wrong: a value is missing, malformed or out of range. */
public final class InvalidInputException extends TenbinException {
  public InvalidInputException(String field, String message) {
    super(field, message);
  }
}
