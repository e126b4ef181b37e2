package dev.tenbin.core;

/**
 * The caller asked for something this service is configured not to allow: a model outside {@code
 * --allow-models}, a path outside the configured roots. {@link #field()} names the request field
 * that asked for it.
 */
public final class PermissionDeniedException extends TenbinException {
  public PermissionDeniedException(String field, String message) {
    super(field, message);
  }
}
