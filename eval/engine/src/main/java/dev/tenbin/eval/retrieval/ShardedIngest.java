package dev.tenbin.eval.retrieval;

import dev.tenbin.client.index.ShardedCollection;
import dev.tenbin.proto.index.v1.Document;
import io.grpc.StatusRuntimeException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Fills the shards of a collection, every replica of each, at once from one walk of the documents:
 * each document is handed to the ingest stream of every live replica of the shard its id hashes to
 * ({@link ShardedCollection#shardOf}), each replica's stream runs on a thread of its own, and at
 * most {@value #QUEUED} documents wait per stream, so memory stays bounded and a slow stream slows
 * the walk instead of growing a queue.
 *
 * <p>A replica's stream that fails for good with UNAVAILABLE or DEADLINE_EXCEEDED (its pod gone:
 * {@link ShardedCollection#losesReplica}) is left out ({@link ShardedCollection#lose}) and the walk
 * goes on with the shard's other replicas; the ingest fails only when a shard has no replica left,
 * or on any other failure.
 */
final class ShardedIngest {
  /** Documents waiting for one stream, at most. */
  static final int QUEUED = 2_048;

  private static final Document END = Document.getDefaultInstance();

  private ShardedIngest() {}

  /** One replica's ingest stream: its queue, and whether it was left out. */
  private static final class Stream {
    final int shard;
    final int replica;
    final BlockingQueue<Document> queue = new ArrayBlockingQueue<>(QUEUED);
    volatile boolean lost;
    long count = -1;

    Stream(int shard, int replica) {
      this.shard = shard;
      this.replica = replica;
    }
  }

  /** Ingests {@code documents} into the shards; returns the documents the shards hold together. */
  static long ingest(
      CollectionIngester ingester, ShardedCollection collection, Iterator<Document> documents) {
    int shards = collection.shards();
    int replicas = collection.replicas();
    AtomicReference<RuntimeException> failure = new AtomicReference<>();
    List<List<Stream>> byShard = new ArrayList<>(shards);
    List<Thread> threads = new ArrayList<>();
    for (int s = 0; s < shards; s++) {
      List<Stream> streams = new ArrayList<>(replicas);
      byShard.add(streams);
      for (int r = 0; r < replicas; r++) {
        Stream stream = new Stream(s, r);
        streams.add(stream);
        if (collection.isLost(s, r)) {
          stream.lost = true;
          continue;
        }
        String name = collection.replicaName(s, r);
        threads.add(
            Thread.ofVirtual()
                .name("ingest-" + name)
                .start(() -> run(ingester, collection, name, stream, failure)));
      }
    }
    try {
      while (documents.hasNext() && failure.get() == null) {
        Document document = documents.next();
        for (Stream stream : byShard.get(ShardedCollection.shardOf(document.getId(), shards))) {
          put(stream, document, failure);
        }
      }
      for (List<Stream> streams : byShard) {
        for (Stream stream : streams) {
          put(stream, END, failure);
        }
      }
      for (Thread thread : threads) {
        thread.join();
      }
    } catch (InterruptedException e) {
      threads.forEach(Thread::interrupt);
      Thread.currentThread().interrupt();
      throw new IllegalStateException("ingest interrupted", e);
    }
    if (failure.get() != null) {
      throw failure.get();
    }
    long total = 0;
    for (List<Stream> streams : byShard) {
      // Every live replica of a shard holds the same documents: their counts agree.
      List<Long> counts =
          streams.stream().filter(stream -> !stream.lost).map(stream -> stream.count).toList();
      if (counts.stream().distinct().count() != 1) {
        throw new IllegalStateException(
            "the live replicas of shard "
                + streams.getFirst().shard
                + " of "
                + collection.name()
                + " hold different document counts: "
                + counts);
      }
      total += counts.getFirst();
    }
    return total;
  }

  /** One replica's stream, to its end, to its loss, or to the ingest's failure. */
  private static void run(
      CollectionIngester ingester,
      ShardedCollection collection,
      String name,
      Stream stream,
      AtomicReference<RuntimeException> failure) {
    try {
      stream.count = ingester.ingest(name, drain(stream, failure));
    } catch (StatusRuntimeException e) {
      if (failure.get() != null) {
        return; // Another stream failed the ingest; this one stopped with it.
      }
      if (!collection.losesReplica(e)) {
        failure.compareAndSet(null, e);
        return;
      }
      stream.lost = true;
      stream.queue.clear();
      try {
        collection.lose(stream.shard, stream.replica, e);
      } catch (StatusRuntimeException none) {
        failure.compareAndSet(null, none);
      }
    } catch (RuntimeException e) {
      failure.compareAndSet(null, e);
    }
  }

  /**
   * Puts a document once there is room, unless the stream was left out or a stream failed the
   * ingest meanwhile.
   */
  private static void put(
      Stream stream, Document document, AtomicReference<RuntimeException> failure)
      throws InterruptedException {
    while (failure.get() == null && !stream.lost) {
      if (stream.queue.offer(document, 100, TimeUnit.MILLISECONDS)) {
        return;
      }
    }
  }

  /** The documents a stream's queue receives until its end mark (or the ingest's failure). */
  private static Iterator<Document> drain(
      Stream stream, AtomicReference<RuntimeException> failure) {
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
              next = stream.queue.poll(100, TimeUnit.MILLISECONDS);
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
