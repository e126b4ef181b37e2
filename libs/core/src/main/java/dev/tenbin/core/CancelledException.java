package dev.tenbin.core;

/** The caller went away (cancelled, or its deadline passed) before the work finished. */
public final class CancelledException extends TenbinException {
  public CancelledException(String message) {
    super(null, message);
  }
}
