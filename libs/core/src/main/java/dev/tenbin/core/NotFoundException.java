package dev.tenbin.core;

/** The request names something (a collection, a model, a job) that does not exist. */
public final class NotFoundException extends TenbinException {
  public NotFoundException(String field, String message) {
    super(field, message);
  }
}
