package dev.tenbin.index.collection;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenbin.index.config.IndexServiceConfig;
import dev.tenbin.index.search.LexicalQuery;
import dev.tenbin.index.server.IndexServer;
import dev.tenbin.proto.index.v1.CreateCollectionRequest;
import dev.tenbin.proto.index.v1.Document;
import dev.tenbin.proto.index.v1.IndexServiceGrpc;
import dev.tenbin.proto.index.v1.IngestRequest;
import dev.tenbin.proto.index.v1.IngestResponse;
import dev.tenbin.rpc.ClientChannels;
import dev.tenbin.rpc.ClientSecurity;
import dev.tenbin.rpc.ServerSettings;
import dev.tenbin.rpc.StatusMapper;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A graceful stop of the index (SIGTERM, as a rolling update sends it) while a client streams an
 * ingest, over loopback: the batch being committed when the stop begins is committed and
 * acknowledged, the stream then ends with UNAVAILABLE and a retry delay early in the grace period
 * (not CANCELLED at its end), nothing the client sent after it is applied, and the client resumes
 * from its first unacknowledged batch on the restarted service.
 */
class IngestDrainTest {
  private static final Duration GRACE = Duration.ofSeconds(8);

  @TempDir Path dataDir;
  private final ExecutorService threads = Executors.newCachedThreadPool();
  private IndexServer.Embedded server;
  private ManagedChannel channel;

  @AfterEach
  void stop() {
    threads.shutdownNow();
    if (channel != null) {
      channel.shutdownNow();
    }
    if (server != null) {
      server.close();
    }
  }

  private void startServer() {
    server =
        IndexServer.start(
            new IndexServiceConfig(
                new ServerSettings("127.0.0.1", 0, -1, 64 << 20, GRACE),
                dataDir,
                IndexServiceConfig.DEFAULT_MAX_TOP_K,
                IndexServiceConfig.DEFAULT_MAX_QUERIES));
    if (channel != null) {
      channel.shutdownNow();
    }
    channel =
        ClientChannels.open(
            "127.0.0.1", server.host().port(), ClientSecurity.plaintext(), 64 << 20);
  }

  private static IngestRequest batch(int number) {
    IngestRequest.Builder batch = IngestRequest.newBuilder().setCollection("c");
    for (int i = 0; i < 3; i++) {
      batch.addDocuments(
          Document.newBuilder().setId("b" + number + "-" + i).setText("apple " + number));
    }
    return batch.build();
  }

  /** An open ingest stream: acknowledgements and its end, as they come. */
  private record Stream(StreamObserver<IngestRequest> requests, BlockingQueue<Object> events) {}

  private Stream open() {
    BlockingQueue<Object> events = new LinkedBlockingQueue<>();
    StreamObserver<IngestRequest> requests =
        IndexServiceGrpc.newStub(channel)
            .withDeadlineAfter(60, TimeUnit.SECONDS)
            .ingest(
                new StreamObserver<>() {
                  @Override
                  public void onNext(IngestResponse ack) {
                    events.add(ack);
                  }

                  @Override
                  public void onError(Throwable t) {
                    events.add(t);
                  }

                  @Override
                  public void onCompleted() {
                    events.add(Status.OK);
                  }
                });
    return new Stream(requests, events);
  }

  private Set<String> committedIds() {
    Set<String> ids = new HashSet<>();
    try (CollectionCatalog catalog = CollectionCatalog.open(dataDir)) {
      IndexCollection collection = catalog.get("c", "collection");
      Searches.top(collection, new LexicalQuery("apple"), 1_000)
          .forEach(hit -> ids.add(hit.docId()));
    }
    return ids;
  }

  @Test
  void aStopDuringAnIngestHandsTheStreamBackAfterTheBatchInProgressAndTheClientResumes()
      throws Exception {
    startServer();
    IndexServiceGrpc.newBlockingStub(channel)
        .createCollection(
            CreateCollectionRequest.newBuilder()
                .setSpec(dev.tenbin.proto.index.v1.CollectionSpec.newBuilder().setName("c"))
                .build());
    CountDownLatch committing = new CountDownLatch(1);
    CountDownLatch stopping = new CountDownLatch(1);
    IndexCollection collection = server.catalog().get("c", "collection");
    Stream stream = open();
    stream.requests().onNext(batch(1));
    assertThat(((IngestResponse) stream.events().poll(10, TimeUnit.SECONDS)).getSequence())
        .isEqualTo(1);
    // Batch 2 is being committed when the stop begins (and takes a while longer).
    collection.injectFaults(
        stage -> {
          if (stage == IngestFaults.Stage.APPENDED && committing.getCount() > 0) {
            committing.countDown();
            try {
              stopping.await(10, TimeUnit.SECONDS);
              Thread.sleep(300);
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
            }
          }
        });
    stream.requests().onNext(batch(2));
    assertThat(committing.await(10, TimeUnit.SECONDS)).isTrue();

    long start = System.nanoTime();
    CompletableFuture<Void> closing = CompletableFuture.runAsync(server.host()::close, threads);
    stopping.countDown();
    // The client goes on sending, as an ingester does, until the stream ends.
    List<IngestResponse> acks = new ArrayList<>();
    Object end = null;
    int next = 3;
    while (end == null && System.nanoTime() - start < GRACE.plusSeconds(5).toNanos()) {
      stream.requests().onNext(batch(next++));
      Object event = stream.events().poll(100, TimeUnit.MILLISECONDS);
      while (event instanceof IngestResponse ack) {
        acks.add(ack);
        event = stream.events().poll();
      }
      end = event;
    }

    assertThat(end).isInstanceOf(Throwable.class);
    Throwable failure = (Throwable) end;
    assertThat(Status.fromThrowable(failure).getCode()).isEqualTo(Status.Code.UNAVAILABLE);
    assertThat(StatusMapper.retryDelay(failure)).isPresent();
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(GRACE.dividedBy(2));
    // The batch in progress was committed and acknowledged; nothing after it.
    assertThat(acks).extracting(IngestResponse::getSequence).containsExactly(2L);
    closing.get(30, TimeUnit.SECONDS);
    server.catalog().close();
    Set<String> committed = committedIds();
    assertThat(committed).containsExactlyInAnyOrder("b1-0", "b1-1", "b1-2", "b2-0", "b2-1", "b2-2");

    // The restarted service takes the rest, from the first unacknowledged batch.
    startServer();
    Stream resumed = open();
    for (int b = 3; b < next; b++) {
      resumed.requests().onNext(batch(b));
    }
    resumed.requests().onCompleted();
    Object event;
    int resumedAcks = 0;
    while ((event = resumed.events().poll(20, TimeUnit.SECONDS)) instanceof IngestResponse) {
      resumedAcks++;
    }
    assertThat(event).isEqualTo(Status.OK);
    assertThat(resumedAcks).isEqualTo(next - 3);
    assertThat(server.catalog().get("c", "collection").size()).isEqualTo(3L * (next - 1));
  }
}
