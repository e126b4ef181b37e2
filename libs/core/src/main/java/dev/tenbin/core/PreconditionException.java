package dev.tenbin.core;

/** The request is well formed but the system is not in a state to serve it. */
public final class PreconditionException extends TenbinException {
  public PreconditionException(String field, String message) {
    super(field, message);
  }
}
