package dev.tenbin.core;

/** A bounded resource (a queue, a budget) is full; the caller may retry later. */
public final class OverloadedException extends TenbinException {
  public OverloadedException(String message) {
    super(null, message);
  }
}
