package dev.tenbin.eval.retrieval;

import dev.tenbin.client.index.IndexClient;
import dev.tenbin.proto.index.v1.Document;
import dev.tenbin.proto.index.v1.IngestRequest;
import dev.tenbin.proto.index.v1.IngestResponse;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.ClientCallStreamObserver;
import io.grpc.stub.ClientResponseObserver;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Streams documents into a collection over the Ingest RPC, one atomic batch per message, pulling
 * the documents from an iterator as the stream can take them: at most {@value #WINDOW} batches are
 * sent and not yet acknowledged, so memory stays in the size of a few batches whatever the corpus's
 * size. The service acknowledges each committed batch; when the stream is lost (UNAVAILABLE: a
 * restart, a drain) the ingester opens a new one and re-sends from the first unacknowledged batch
 * (re-sending a batch that did commit is a no-op on the service), up to {@value #MAX_RETRIES} times
 * in a row without progress, with growing pauses.
 *
 * <p>No deadline covers the whole corpus: the stream fails only when the service acknowledges
 * nothing for the idle timeout, so a big corpus or a slow machine never fails for time alone.
 *
 * <p>An ingester {@link #mergingAtTheEnd() merging at the end} asks, with the last batch, that the
 * collection's index be merged into one segment once it is committed ({@code merge_segments}): for
 * a collection complete after this ingest that is then searched many times, as {@code tenbin bench
 * bm25}'s (an evaluation's ingest does not ask: {@link IndexSession#ingest(Iterator, long)}).
 */
public final class CollectionIngester {
  public static final int MAX_RETRIES = 5;

  /** Batches sent and not yet acknowledged, at most. */
  public static final int WINDOW = 8;

  /**
   * Serialized bytes of a batch's documents, at most (a batch ends before the document that would
   * pass it; a single larger document is a batch of its own): well below the services' inbound
   * message limit, and {@value #WINDOW} of them in flight bound the ingest's memory whatever the
   * vectors' sizes.
   */
  public static final int MAX_BATCH_BYTES = 4 << 20;

  private static final Duration FIRST_PAUSE = Duration.ofMillis(200);
  private static final Duration MAX_PAUSE = Duration.ofSeconds(5);

  private final IndexClient index;
  private final int batchSize;
  private final long idleSeconds;
  private final Duration firstPause;
  private final boolean mergeAtTheEnd;

  /**
   * @param batchSize documents per batch (one commit each), at most; fewer where they would pass
   *     {@value #MAX_BATCH_BYTES} bytes
   * @param idleSeconds how long the stream may go without an acknowledgement before it fails
   */
  public CollectionIngester(IndexClient index, int batchSize, long idleSeconds) {
    this(index, batchSize, idleSeconds, FIRST_PAUSE);
  }

  /** As above, with the pause before the first retry (doubling up to 5 s); tests use short ones. */
  public CollectionIngester(
      IndexClient index, int batchSize, long idleSeconds, Duration firstPause) {
    this(index, batchSize, idleSeconds, firstPause, false);
  }

  private CollectionIngester(
      IndexClient index,
      int batchSize,
      long idleSeconds,
      Duration firstPause,
      boolean mergeAtTheEnd) {
    if (batchSize < 1) {
      throw new IllegalArgumentException("batchSize must be at least 1, got " + batchSize);
    }
    if (idleSeconds < 1) {
      throw new IllegalArgumentException("idleSeconds must be at least 1, got " + idleSeconds);
    }
    this.index = index;
    this.batchSize = batchSize;
    this.idleSeconds = idleSeconds;
    this.firstPause = firstPause;
    this.mergeAtTheEnd = mergeAtTheEnd;
  }

  /**
   * This ingester, asking with each ingest's last batch that the collection be merged into one
   * segment once the batch is committed (the acknowledgement of that batch comes after the merge).
   */
  public CollectionIngester mergingAtTheEnd() {
    return new CollectionIngester(index, batchSize, idleSeconds, firstPause, true);
  }

  /** Ingests every document of a list; see {@link #ingest(String, Iterator)}. */
  public long ingest(String collection, List<Document> documents) {
    return ingest(collection, documents.iterator());
  }

  /**
   * Ingests every document {@code documents} yields, in order; returns the collection's committed
   * document count.
   *
   * @throws StatusRuntimeException the service's status when a batch is refused, UNAVAILABLE once
   *     the retries are spent, or DEADLINE_EXCEEDED when the service acknowledged nothing for the
   *     idle timeout
   */
  public long ingest(String collection, Iterator<Document> documents) {
    Batches batches = new Batches(collection, documents);
    long documentCount = -1;
    int retries = 0;
    while (true) {
      Attempt attempt = new Attempt(batches);
      StatusRuntimeException failure = attempt.run();
      if (attempt.acks.get() > 0) {
        documentCount = attempt.documentCount.get();
        retries = 0;
      }
      if (failure == null) {
        return documentCount;
      }
      if (failure.getStatus().getCode() != Status.Code.UNAVAILABLE || retries >= MAX_RETRIES) {
        throw failure;
      }
      retries++;
      pause(retries);
    }
  }

  private void pause(int retry) {
    long millis = Math.min(MAX_PAUSE.toMillis(), firstPause.toMillis() << Math.min(retry - 1, 20));
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("ingest interrupted", e);
    }
  }

  /**
   * The batches of one ingest: those sent and not yet acknowledged (re-sent first by a new stream),
   * then the ones still to be made from the documents.
   */
  private final class Batches {
    private final String collection;
    private final Iterator<Document> documents;
    private final Deque<IngestRequest> unacknowledged = new ArrayDeque<>();
    private boolean anyMade;

    Batches(String collection, Iterator<Document> documents) {
      this.collection = collection;
      this.documents = documents;
    }

    /** A document taken from the iterator that did not fit the last batch made. */
    private Document held;

    /** The next batch made from the documents, or null when they are all made. */
    IngestRequest make() {
      if (held == null && !documents.hasNext() && anyMade) {
        return null;
      }
      IngestRequest.Builder batch = IngestRequest.newBuilder().setCollection(collection);
      long bytes = 0;
      if (held != null) {
        batch.addDocuments(held);
        bytes = held.getSerializedSize();
        held = null;
      }
      while (batch.getDocumentsCount() < batchSize && documents.hasNext()) {
        Document next = documents.next();
        int size = next.getSerializedSize();
        if (batch.getDocumentsCount() > 0 && bytes + size > MAX_BATCH_BYTES) {
          held = next; // the first document of the next batch
          break;
        }
        batch.addDocuments(next);
        bytes += size;
      }
      // An empty corpus still sends one (empty) batch: its answer says the document count.
      anyMade = true;
      if (mergeAtTheEnd && held == null && !documents.hasNext()) {
        batch.setMergeSegments(true);
      }
      return batch.build();
    }
  }

  /** One stream: re-sends the unacknowledged batches, then new ones, counts acknowledgements. */
  private final class Attempt {
    private final Batches batches;
    final AtomicInteger acks = new AtomicInteger();
    final AtomicLong documentCount = new AtomicLong(-1);
    private final CompletableFuture<Void> done = new CompletableFuture<>();
    private final Semaphore signal = new Semaphore(0);
    private volatile long lastProgress = System.nanoTime();

    Attempt(Batches batches) {
      this.batches = batches;
    }

    private boolean idle() {
      return System.nanoTime() - lastProgress > TimeUnit.SECONDS.toNanos(idleSeconds);
    }

    /** Waits for an acknowledgement, readiness or the end; false once the stream is idle. */
    private boolean await() throws InterruptedException {
      signal.tryAcquire(100, TimeUnit.MILLISECONDS);
      return !idle();
    }

    /**
     * Runs the stream to its end; returns its failure, or null when every batch was acknowledged.
     */
    StatusRuntimeException run() {
      ClientResponseObserver<IngestRequest, IngestResponse> observer =
          new ClientResponseObserver<>() {
            @Override
            public void beforeStart(ClientCallStreamObserver<IngestRequest> requestStream) {
              requestStream.setOnReadyHandler(signal::release);
            }

            @Override
            public void onNext(IngestResponse ack) {
              synchronized (batches.unacknowledged) {
                batches.unacknowledged.pollFirst();
              }
              documentCount.set(ack.getDocumentCount());
              acks.incrementAndGet();
              lastProgress = System.nanoTime();
              signal.release();
            }

            @Override
            public void onError(Throwable t) {
              done.completeExceptionally(t);
              signal.release();
            }

            @Override
            public void onCompleted() {
              done.complete(null);
              signal.release();
            }
          };
      ClientCallStreamObserver<IngestRequest> requests = index.ingest(null, observer);
      try {
        List<IngestRequest> resend;
        synchronized (batches.unacknowledged) {
          resend = List.copyOf(batches.unacknowledged);
        }
        for (IngestRequest batch : resend) {
          if (!send(requests, batch)) {
            return stopped(requests);
          }
        }
        while (!done.isDone()) {
          while (windowFull() && !done.isDone()) {
            if (!await()) {
              return stopped(requests);
            }
          }
          if (done.isDone()) {
            break;
          }
          IngestRequest next = batches.make();
          if (next == null) {
            break;
          }
          synchronized (batches.unacknowledged) {
            batches.unacknowledged.addLast(next);
          }
          if (!send(requests, next)) {
            return stopped(requests);
          }
        }
        if (!done.isDone()) {
          requests.onCompleted();
        }
        while (!done.isDone()) {
          if (!await()) {
            return stopped(requests);
          }
        }
        done.get();
        if (!unacknowledgedIsEmpty()) {
          throw new IllegalStateException(
              "the index service ended the ingest after "
                  + acks.get()
                  + " batches without acknowledging the rest and without an error");
        }
        return null;
      } catch (InterruptedException e) {
        requests.cancel("interrupted", e);
        Thread.currentThread().interrupt();
        throw new IllegalStateException("ingest interrupted", e);
      } catch (ExecutionException e) {
        if (e.getCause() instanceof StatusRuntimeException status) {
          return status;
        }
        throw new IllegalStateException("ingest failed: " + e.getCause(), e.getCause());
      }
    }

    private boolean windowFull() {
      synchronized (batches.unacknowledged) {
        return batches.unacknowledged.size() >= WINDOW;
      }
    }

    private boolean unacknowledgedIsEmpty() {
      synchronized (batches.unacknowledged) {
        return batches.unacknowledged.isEmpty();
      }
    }

    /** Sends one batch once the transport is ready; false when the stream ended or went idle. */
    private boolean send(ClientCallStreamObserver<IngestRequest> requests, IngestRequest batch)
        throws InterruptedException {
      while (!requests.isReady() && !done.isDone()) {
        if (!await()) {
          return false;
        }
      }
      if (done.isDone()) {
        return false;
      }
      requests.onNext(batch);
      return true;
    }

    /** The stream's failure, or (idle) the stream cancelled as DEADLINE_EXCEEDED. */
    private StatusRuntimeException stopped(ClientCallStreamObserver<IngestRequest> requests)
        throws InterruptedException {
      if (!done.isDone() && idle()) {
        requests.cancel("no acknowledgement for " + idleSeconds + " s", null);
        return Status.DEADLINE_EXCEEDED
            .withDescription(
                "the index service acknowledged no batch for "
                    + idleSeconds
                    + " s ("
                    + acks.get()
                    + " batches acknowledged by this stream)")
            .asRuntimeException();
      }
      try {
        done.get();
      } catch (ExecutionException e) {
        if (e.getCause() instanceof StatusRuntimeException status) {
          return status;
        }
        throw new IllegalStateException("ingest failed: " + e.getCause(), e.getCause());
      }
      throw new IllegalStateException(
          "the index service ended the ingest after "
              + acks.get()
              + " batches without acknowledging the rest and without an error");
    }
  }
}
