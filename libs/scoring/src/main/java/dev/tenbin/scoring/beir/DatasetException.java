package dev.tenbin.scoring.beir;

/** A dataset folder that cannot be evaluated: a missing, unreadable or corrupt file. */
public final class DatasetException extends RuntimeException {
  public DatasetException(String message) {
    super(message);
  }

  public DatasetException(String message, Throwable cause) {
    super(message, cause);
  }
}
