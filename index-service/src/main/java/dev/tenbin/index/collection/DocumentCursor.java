package dev.tenbin.index.collection;

import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.Deque;
import java.util.NoSuchElementException;

/**
 * A walk over a collection's committed documents in id order (Java's string order, the vector
 * searchers' tie order), each as ingest takes it: id, title, text and every vector the collection
 * stores, read from the stores ({@link IndexCollection#documentsInIdOrder()}). It covers the
 * documents committed when it was opened; later batches are not in it. Opening it sorts the ids
 * once (as the vector searchers' tie order does); the walk then holds only the ordinals (4 bytes a
 * document): titles, texts and vectors are read from the stores a few documents at a time, never
 * the whole collection. One walk is read by one thread.
 */
public final class DocumentCursor {
  /** Documents whose stored fields are read from the BM25 index in one go. */
  private static final int READ_AHEAD = 64;

  private final CollectionStores stores;
  private final int[] ordinals;
  private final Runnable requireServing;
  private final Deque<IngestDocument> read = new ArrayDeque<>(READ_AHEAD);
  private int position;

  DocumentCursor(CollectionStores stores, int[] ordinals, Runnable requireServing) {
    this.stores = stores;
    this.ordinals = ordinals;
    this.requireServing = requireServing;
  }

  /** The documents of the whole walk. */
  public int size() {
    return ordinals.length;
  }

  /** Documents handed out so far. */
  public int position() {
    return position;
  }

  public boolean hasNext() {
    return position < ordinals.length;
  }

  /**
   * The next document in id order.
   *
   * @throws NoSuchElementException past the last document
   * @throws dev.tenbin.core.UnavailableException when the collection was closed (dropped, or the
   *     service stopping) during the walk
   */
  public IngestDocument next() {
    if (!hasNext()) {
      throw new NoSuchElementException("the walk is over: " + ordinals.length + " documents");
    }
    if (read.isEmpty()) {
      requireServing.run();
      int[] chunk =
          Arrays.copyOfRange(ordinals, position, Math.min(ordinals.length, position + READ_AHEAD));
      int[] at = {0};
      stores.lexical.documents(
          chunk,
          text -> {
            int ordinal = chunk[at[0]++];
            read.add(
                new IngestDocument(
                    text.id(),
                    text.title(),
                    text.text(),
                    stores.dense == null ? null : stores.dense.vector(ordinal),
                    stores.sparse == null ? null : stores.sparse.get(ordinal),
                    stores.multiVectors == null ? null : stores.multiVectors.get(ordinal)));
          });
    }
    position++;
    return read.removeFirst();
  }
}
