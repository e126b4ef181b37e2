package dev.tenbin.eval.retrieval;

import dev.tenbin.client.index.IndexClient;
import dev.tenbin.proto.index.v1.Document;
import dev.tenbin.proto.index.v1.IngestRequest;
import dev.tenbin.proto.index.v1.IngestResponse;
import io.grpc.Channel;
import io.grpc.Deadline;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.ClientCallStreamObserver;
import io.grpc.stub.ClientResponseObserver;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Streams documents into a collection over the Ingest RPC, one atomic batch per message, waiting
 * for the transport to be ready rather than buffering without bound. The service acknowledges each
 * committed batch; when the stream is lost (UNAVAILABLE) the ingester opens a new one and re-sends
 * from the first unacknowledged batch (re-sending a batch that did commit is a no-op on the
 * service), up to {@value #MAX_RETRIES} times in a row without progress, with growing pauses, all
 * within the one deadline.
 */
public final class CollectionIngester {
  public static final int MAX_RETRIES = 5;
  private static final Duration FIRST_PAUSE = Duration.ofMillis(200);
  private static final Duration MAX_PAUSE = Duration.ofSeconds(5);

  private final Channel channel;
  private final int batchSize;
  private final long deadlineSeconds;
  private final Duration firstPause;

  public CollectionIngester(Channel channel, int batchSize, long deadlineSeconds) {
    this(channel, batchSize, deadlineSeconds, FIRST_PAUSE);
  }

  /** As above, with the pause before the first retry (doubling up to 5 s); tests use short ones. */
  public CollectionIngester(
      Channel channel, int batchSize, long deadlineSeconds, Duration firstPause) {
    if (batchSize < 1) {
      throw new IllegalArgumentException("batchSize must be at least 1, got " + batchSize);
    }
    this.channel = channel;
    this.batchSize = batchSize;
    this.deadlineSeconds = deadlineSeconds;
    this.firstPause = firstPause;
  }

  /**
   * Ingests every document; returns the collection's committed document count.
   *
   * @throws StatusRuntimeException the service's status when a batch is refused, or UNAVAILABLE
   *     once the retries are spent
   */
  public long ingest(String collection, List<Document> documents) {
    List<IngestRequest> batches = new ArrayList<>();
    for (int from = 0; from < documents.size() || batches.isEmpty(); from += batchSize) {
      batches.add(
          IngestRequest.newBuilder()
              .setCollection(collection)
              .addAllDocuments(
                  documents.subList(from, Math.min(documents.size(), from + batchSize)))
              .build());
    }
    Deadline deadline = Deadline.after(deadlineSeconds, TimeUnit.SECONDS);
    int acknowledged = 0;
    long documentCount = -1;
    int retries = 0;
    while (true) {
      Attempt attempt = new Attempt(batches, acknowledged, deadline);
      StatusRuntimeException failure = attempt.run();
      acknowledged += attempt.acks.get();
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
      pause(retries, deadline, failure);
    }
  }

  private void pause(int retry, Deadline deadline, StatusRuntimeException failure) {
    long millis = Math.min(MAX_PAUSE.toMillis(), firstPause.toMillis() << Math.min(retry - 1, 20));
    if (millis >= deadline.timeRemaining(TimeUnit.MILLISECONDS)) {
      throw failure;
    }
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("ingest interrupted", e);
    }
  }

  /** One stream: sends the batches from the first unacknowledged one, counts acknowledgements. */
  private final class Attempt {
    private final List<IngestRequest> batches;
    private final int from;
    private final Deadline deadline;
    final AtomicInteger acks = new AtomicInteger();
    final AtomicLong documentCount = new AtomicLong(-1);
    private final CompletableFuture<Void> done = new CompletableFuture<>();
    private final Semaphore ready = new Semaphore(0);

    Attempt(List<IngestRequest> batches, int from, Deadline deadline) {
      this.batches = batches;
      this.from = from;
      this.deadline = deadline;
    }

    /**
     * Runs the stream to its end; returns its failure, or null when every batch was acknowledged.
     */
    StatusRuntimeException run() {
      ClientResponseObserver<IngestRequest, IngestResponse> observer =
          new ClientResponseObserver<>() {
            @Override
            public void beforeStart(ClientCallStreamObserver<IngestRequest> requestStream) {
              requestStream.setOnReadyHandler(ready::release);
            }

            @Override
            public void onNext(IngestResponse ack) {
              documentCount.set(ack.getDocumentCount());
              acks.incrementAndGet();
            }

            @Override
            public void onError(Throwable t) {
              done.completeExceptionally(t);
              ready.release();
            }

            @Override
            public void onCompleted() {
              done.complete(null);
              ready.release();
            }
          };
      ClientCallStreamObserver<IngestRequest> requests =
          IndexClient.of(channel).ingest(deadline, observer);
      try {
        for (int next = from; next < batches.size() && !done.isDone(); next++) {
          while (!requests.isReady() && !done.isDone()) {
            ready.tryAcquire(100, TimeUnit.MILLISECONDS);
          }
          if (done.isDone()) {
            break;
          }
          requests.onNext(batches.get(next));
        }
        if (!done.isDone()) {
          requests.onCompleted();
        }
        // gRPC ends the call at the deadline; the extra second only guards against a lost callback.
        done.get(deadline.timeRemaining(TimeUnit.MILLISECONDS) + 1_000, TimeUnit.MILLISECONDS);
        if (from + acks.get() != batches.size()) {
          throw new IllegalStateException(
              "the index service ended the ingest after "
                  + acks.get()
                  + " of "
                  + (batches.size() - from)
                  + " batches without an error");
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
      } catch (TimeoutException e) {
        requests.cancel("timed out", e);
        throw new IllegalStateException(
            "ingest did not finish within " + deadlineSeconds + " s", e);
      }
    }
  }
}
