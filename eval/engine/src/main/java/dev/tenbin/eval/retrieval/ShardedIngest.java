package dev.tenbin.eval.retrieval;

import dev.tenbin.client.index.ShardedCollection;
import dev.tenbin.proto.index.v1.Document;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Fills the shards of a collection at once from one walk of the documents: each document is handed
 * to the ingest stream of the shard its id hashes to ({@link ShardedCollection#shardOf}), each
 * shard's stream runs on a thread of its own, and at most {@value #QUEUED} documents wait per
 * shard, so memory stays bounded and a slow shard slows the walk instead of growing a queue.
 */
final class ShardedIngest {
  /** Documents waiting for one shard's stream, at most. */
  static final int QUEUED = 2_048;

  private static final Document END = Document.getDefaultInstance();

  private ShardedIngest() {}

  /** Ingests {@code documents} into the shards; returns the documents the shards hold together. */
  static long ingest(
      CollectionIngester ingester, ShardedCollection collection, Iterator<Document> documents) {
    int shards = collection.shards();
    List<BlockingQueue<Document>> queues = new ArrayList<>(shards);
    AtomicReference<RuntimeException> failure = new AtomicReference<>();
    long[] counts = new long[shards];
    List<Thread> streams = new ArrayList<>(shards);
    for (int s = 0; s < shards; s++) {
      BlockingQueue<Document> queue = new ArrayBlockingQueue<>(QUEUED);
      queues.add(queue);
      int shard = s;
      String name = collection.shardNames().get(s);
      streams.add(
          Thread.ofVirtual()
              .name("ingest-" + name)
              .start(
                  () -> {
                    try {
                      counts[shard] = ingester.ingest(name, drain(queue, failure));
                    } catch (RuntimeException e) {
                      failure.compareAndSet(null, e);
                    }
                  }));
    }
    try {
      while (documents.hasNext() && failure.get() == null) {
        Document document = documents.next();
        put(queues.get(ShardedCollection.shardOf(document.getId(), shards)), document, failure);
      }
      for (BlockingQueue<Document> queue : queues) {
        put(queue, END, failure);
      }
      for (Thread stream : streams) {
        stream.join();
      }
    } catch (InterruptedException e) {
      streams.forEach(Thread::interrupt);
      Thread.currentThread().interrupt();
      throw new IllegalStateException("ingest interrupted", e);
    }
    if (failure.get() != null) {
      throw failure.get();
    }
    long total = 0;
    for (long count : counts) {
      total += count;
    }
    return total;
  }

  /** Puts a document once there is room, unless a shard's stream failed meanwhile. */
  private static void put(
      BlockingQueue<Document> queue, Document document, AtomicReference<RuntimeException> failure)
      throws InterruptedException {
    while (failure.get() == null) {
      if (queue.offer(document, 100, TimeUnit.MILLISECONDS)) {
        return;
      }
    }
  }

  /** The documents a shard's queue receives until its end mark (or another stream's failure). */
  private static Iterator<Document> drain(
      BlockingQueue<Document> queue, AtomicReference<RuntimeException> failure) {
    return new Iterator<>() {
      private Document next;

      @Override
      public boolean hasNext() {
        if (next == null) {
          try {
            while (next == null) {
              if (failure.get() != null) {
                throw failure.get();
              }
              next = queue.poll(100, TimeUnit.MILLISECONDS);
            }
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("ingest interrupted", e);
          }
        }
        return next != END;
      }

      @Override
      public Document next() {
        if (!hasNext()) {
          throw new NoSuchElementException();
        }
        Document document = next;
        next = null;
        return document;
      }
    };
  }
}
