package dev.tenbin.index.collection;

/**
 * The index service will not use a data directory: it holds files the service did not create, it
 * was written by a newer format, or another index service is using it. Nothing in it was changed.
 */
public final class DataDirectoryRefusedException extends RuntimeException {
  public DataDirectoryRefusedException(String message) {
    super(message);
  }
}
