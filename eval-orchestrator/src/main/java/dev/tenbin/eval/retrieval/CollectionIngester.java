package dev.tenbin.eval.retrieval;

import dev.tenbin.proto.index.v1.Document;
import dev.tenbin.proto.index.v1.IndexServiceGrpc;
import dev.tenbin.proto.index.v1.IngestRequest;
import dev.tenbin.proto.index.v1.IngestResponse;
import io.grpc.Channel;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.ClientCallStreamObserver;
import io.grpc.stub.ClientResponseObserver;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Streams documents into a collection over the client-streaming Ingest RPC, one atomic batch per
 * message, waiting for the transport to be ready rather than buffering without bound.
 */
public final class CollectionIngester {
  private final Channel channel;
  private final int batchSize;
  private final long deadlineSeconds;

  public CollectionIngester(Channel channel, int batchSize, long deadlineSeconds) {
    this.channel = channel;
    this.batchSize = batchSize;
    this.deadlineSeconds = deadlineSeconds;
  }

  /** Ingests every document; returns the collection's committed document count. */
  public long ingest(String collection, List<Document> documents) {
    CompletableFuture<IngestResponse> done = new CompletableFuture<>();
    Semaphore ready = new Semaphore(0);
    ClientResponseObserver<IngestRequest, IngestResponse> observer =
        new ClientResponseObserver<>() {
          @Override
          public void beforeStart(ClientCallStreamObserver<IngestRequest> requestStream) {
            requestStream.setOnReadyHandler(ready::release);
          }

          @Override
          public void onNext(IngestResponse response) {
            done.complete(response);
          }

          @Override
          public void onError(Throwable t) {
            done.completeExceptionally(t);
            ready.release();
          }

          @Override
          public void onCompleted() {
            ready.release();
          }
        };
    ClientCallStreamObserver<IngestRequest> requests =
        (ClientCallStreamObserver<IngestRequest>)
            IndexServiceGrpc.newStub(channel)
                .withDeadlineAfter(deadlineSeconds, TimeUnit.SECONDS)
                .ingest(observer);
    try {
      for (int from = 0; from < documents.size() && !done.isDone(); from += batchSize) {
        while (!requests.isReady() && !done.isDone()) {
          ready.tryAcquire(100, TimeUnit.MILLISECONDS);
        }
        if (done.isDone()) {
          break;
        }
        requests.onNext(
            IngestRequest.newBuilder()
                .setCollection(collection)
                .addAllDocuments(documents.subList(from, Math.min(documents.size(), from + batchSize)))
                .build());
      }
      if (!done.isDone()) {
        requests.onCompleted();
      }
      return done.get(deadlineSeconds, TimeUnit.SECONDS).getDocumentCount();
    } catch (InterruptedException e) {
      requests.cancel("interrupted", e);
      Thread.currentThread().interrupt();
      throw new IllegalStateException("ingest interrupted", e);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof StatusRuntimeException status) {
        throw status;
      }
      throw new IllegalStateException("ingest failed: " + e.getCause(), e.getCause());
    } catch (TimeoutException e) {
      requests.cancel("timed out", e);
      throw new IllegalStateException("ingest did not finish within " + deadlineSeconds + " s", e);
    }
  }
}
