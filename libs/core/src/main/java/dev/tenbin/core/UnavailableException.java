package dev.tenbin.core;

/**
 * The service cannot serve the call now (it is shutting down, or a model is being unloaded); the
 * caller may retry, possibly against another replica.
 */
public final class UnavailableException extends TenbinException {
  public UnavailableException(String message) {
    super(null, message);
  }
}
