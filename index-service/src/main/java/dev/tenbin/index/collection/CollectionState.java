package dev.tenbin.index.collection;

/** Whether a collection serves. */
public enum CollectionState {
  /** Open and serving. */
  READY,
  /**
   * Quarantined: it could not be opened, or a failed write could not be rolled back. It is listed
   * with its error; search and ingest refuse it; it can be dropped.
   */
  FAILED
}
