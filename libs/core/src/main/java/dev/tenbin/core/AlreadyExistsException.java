package dev.tenbin.core;

/** The request would create something that already exists. */
public final class AlreadyExistsException extends TenbinException {
  public AlreadyExistsException(String field, String message) {
    super(field, message);
  }
}
