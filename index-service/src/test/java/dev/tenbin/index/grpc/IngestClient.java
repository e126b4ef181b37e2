package dev.tenbin.index.grpc;

import dev.tenbin.proto.index.v1.IndexServiceGrpc;
import dev.tenbin.proto.index.v1.IngestRequest;
import dev.tenbin.proto.index.v1.IngestResponse;
import io.grpc.Channel;
import io.grpc.stub.StreamObserver;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

/** Test client of the bidirectional Ingest RPC: sends batches, collects every acknowledgement. */
final class IngestClient {
  private final Channel channel;

  /** Acknowledgements received before the call ended (also when it failed). */
  final List<IngestResponse> acks = new CopyOnWriteArrayList<>();

  IngestClient(Channel channel) {
    this.channel = channel;
  }

  /**
   * Sends the batches and half-closes; returns the acknowledgements, or throws the call's status.
   */
  List<IngestResponse> send(IngestRequest... batches) throws Exception {
    CompletableFuture<List<IngestResponse>> done = new CompletableFuture<>();
    StreamObserver<IngestRequest> requests =
        IndexServiceGrpc.newStub(channel)
            .withDeadlineAfter(60, TimeUnit.SECONDS)
            .ingest(
                new StreamObserver<>() {
                  @Override
                  public void onNext(IngestResponse ack) {
                    acks.add(ack);
                  }

                  @Override
                  public void onError(Throwable t) {
                    done.completeExceptionally(t);
                  }

                  @Override
                  public void onCompleted() {
                    done.complete(List.copyOf(acks));
                  }
                });
    for (IngestRequest batch : batches) {
      requests.onNext(batch);
    }
    requests.onCompleted();
    try {
      return done.get(60, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      throw (Exception) e.getCause();
    }
  }
}
