package dev.tenbin.index.grpc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenbin.index.server.IndexServer;
import dev.tenbin.proto.index.v1.CollectionSpec;
import dev.tenbin.proto.index.v1.CreateCollectionRequest;
import dev.tenbin.proto.index.v1.DescribeCollectionRequest;
import dev.tenbin.proto.index.v1.Document;
import dev.tenbin.proto.index.v1.IndexServiceGrpc;
import dev.tenbin.proto.index.v1.IngestRequest;
import dev.tenbin.proto.index.v1.IngestResponse;
import io.grpc.ManagedChannel;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.grpc.stub.ClientCallStreamObserver;
import io.grpc.stub.ClientResponseObserver;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.IntSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Ingest under flow control: the service reads the next batch only once the acknowledgement of the
 * last one can go out, so a client that stops reading acknowledgements stops the stream (nothing is
 * buffered or committed ahead of it) and resumes it by reading again.
 */
class IngestFlowControlTest {
  private static final int BATCHES = 20;
  @TempDir Path dataDir;
  private IndexServer.Embedded server;
  private ManagedChannel channel;
  private IndexServiceGrpc.IndexServiceBlockingStub index;

  @BeforeEach
  void start() {
    String name = "ingest-flow-" + UUID.randomUUID();
    server = IndexServer.startInProcess(name, dataDir, new SimpleMeterRegistry());
    channel = InProcessChannelBuilder.forName(name).build();
    index = IndexServiceGrpc.newBlockingStub(channel).withDeadlineAfter(60, TimeUnit.SECONDS);
    index.createCollection(
        CreateCollectionRequest.newBuilder()
            .setSpec(CollectionSpec.newBuilder().setName("c"))
            .build());
  }

  @AfterEach
  void stop() {
    channel.shutdownNow();
    server.close();
  }

  private long documentCount() {
    return index
        .describeCollection(DescribeCollectionRequest.newBuilder().setName("c").build())
        .getCollection()
        .getDocumentCount();
  }

  private static void awaitAtLeast(IntSupplier count, int expected) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (count.getAsInt() < expected && System.nanoTime() < deadline) {
      Thread.sleep(5);
    }
    assertThat(count.getAsInt()).isGreaterThanOrEqualTo(expected);
  }

  @Test
  void aClientThatReadsNoAcknowledgementsStopsTheStreamAfterTheBatchesItAskedFor()
      throws Exception {
    List<IngestResponse> acks = new CopyOnWriteArrayList<>();
    CompletableFuture<Void> done = new CompletableFuture<>();
    CompletableFuture<ClientCallStreamObserver<IngestRequest>> call = new CompletableFuture<>();
    IndexServiceGrpc.newStub(channel)
        .withDeadlineAfter(60, TimeUnit.SECONDS)
        .ingest(
            new ClientResponseObserver<IngestRequest, IngestResponse>() {
              @Override
              public void beforeStart(ClientCallStreamObserver<IngestRequest> requestStream) {
                requestStream.disableAutoRequestWithInitial(1);
                call.complete(requestStream);
              }

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
                done.complete(null);
              }
            });
    ClientCallStreamObserver<IngestRequest> requests = call.get();
    for (int b = 0; b < BATCHES; b++) {
      requests.onNext(
          IngestRequest.newBuilder()
              .setCollection("c")
              .addDocuments(Document.newBuilder().setId("d" + b).setText("apple " + b))
              .build());
    }

    awaitAtLeast(acks::size, 1);
    // A service reading ahead would have committed every batch and queued 19 acknowledgements by
    // now.
    Thread.sleep(300);
    assertThat(acks).hasSize(1);
    assertThat(documentCount()).isEqualTo(1);

    requests.request(BATCHES);
    requests.onCompleted();
    done.get(60, TimeUnit.SECONDS);
    assertThat(acks)
        .extracting(IngestResponse::getSequence)
        .containsExactlyElementsOf(
            java.util.stream.LongStream.rangeClosed(1, BATCHES).boxed().toList());
    assertThat(documentCount()).isEqualTo(BATCHES);
  }
}
