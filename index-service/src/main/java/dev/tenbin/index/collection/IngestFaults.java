package dev.tenbin.index.collection;

/**
 * Points in an ingest where a test can make the write fail, as a full disk or a dying store would,
 * to check that the collection returns to its last commit. Production code uses {@link #NONE}.
 */
@FunctionalInterface
interface IngestFaults {
  IngestFaults NONE = stage -> {};

  /** Where a batch's write stands. */
  enum Stage {
    /** Every store holds the batch, nothing is committed. */
    APPENDED,
    /** The vector stores committed the batch, Lucene not yet. */
    VECTORS_COMMITTED,
    /** A failed batch is being rolled back. */
    ROLLING_BACK
  }

  /** Called at {@code stage}; throws to inject a failure there. */
  void at(Stage stage);
}
