package dev.tenbin.integration.retrieval;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tenbin.core.Cancellation;
import dev.tenbin.eval.retrieval.CollectionIngester;
import dev.tenbin.index.collection.CollectionSpec;
import dev.tenbin.index.rank.Hit;
import dev.tenbin.index.search.LexicalQuery;
import dev.tenbin.index.search.SearchRequest;
import dev.tenbin.proto.index.v1.Document;
import io.grpc.ForwardingServerCall;
import io.grpc.ForwardingServerCallListener;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The orchestrator's ingest client resumes after UNAVAILABLE without losing or duplicating
 * documents.
 */
class CollectionIngesterTest {
  @TempDir Path dataDir;
  private InProcessIndex service;

  /** How the first {@code faultyCalls} Ingest calls break. */
  private enum Fault {
    NONE,
    /** The service commits the second batch, then the stream dies before its acknowledgement. */
    ACK_LOST,
    /** The stream dies as the third batch arrives, before the service sees it. */
    BATCH_LOST,
    /** The stream dies as the first batch arrives. */
    DEAD
  }

  /** Breaks Ingest calls as a dropped connection or a restarting replica would. */
  private static final class Faults implements ServerInterceptor {
    private final Fault fault;
    private final int faultyCalls;
    final AtomicInteger calls = new AtomicInteger();
    final java.util.Queue<Integer> batchSizes = new java.util.concurrent.ConcurrentLinkedQueue<>();
    final java.util.Queue<Boolean> mergeAsked = new java.util.concurrent.ConcurrentLinkedQueue<>();

    Faults(Fault fault, int faultyCalls) {
      this.fault = fault;
      this.faultyCalls = faultyCalls;
    }

    @Override
    public <Q, R> ServerCall.Listener<Q> interceptCall(
        ServerCall<Q, R> call, Metadata headers, ServerCallHandler<Q, R> next) {
      boolean faulty = calls.incrementAndGet() <= faultyCalls;
      var breakable =
          new ForwardingServerCall.SimpleForwardingServerCall<Q, R>(call) {
            private int sent;
            private boolean closed;

            void die() {
              if (!closed) {
                closed = true;
                super.close(
                    Status.UNAVAILABLE.withDescription("connection lost (injected)"),
                    new Metadata());
              }
            }

            @Override
            public void sendMessage(R message) {
              if (closed) {
                return;
              }
              if (faulty && fault == Fault.ACK_LOST && ++sent == 2) {
                die();
                return;
              }
              super.sendMessage(message);
            }

            @Override
            public void close(Status status, Metadata trailers) {
              if (!closed) {
                closed = true;
                super.close(status, trailers);
              }
            }
          };
      ServerCall.Listener<Q> listener = next.startCall(breakable, headers);
      return new ForwardingServerCallListener.SimpleForwardingServerCallListener<Q>(listener) {
        private int received;

        @Override
        public void onMessage(Q message) {
          received++;
          if (message instanceof dev.tenbin.proto.index.v1.IngestRequest batch) {
            batchSizes.add(batch.getDocumentsCount());
            mergeAsked.add(batch.getMergeSegments());
          }
          if (faulty && ((fault == Fault.BATCH_LOST && received == 3) || fault == Fault.DEAD)) {
            breakable.die();
          }
          if (!breakable.closed) {
            super.onMessage(message);
          }
        }

        @Override
        public void onHalfClose() {
          if (!breakable.closed) {
            super.onHalfClose();
          }
        }
      };
    }
  }

  private Faults start(Fault fault, int faultyCalls) throws Exception {
    Faults faults = new Faults(fault, faultyCalls);
    service = new InProcessIndex(dataDir, faults);
    service.catalog.create(CollectionSpec.lexical("c", "en"));
    return faults;
  }

  @AfterEach
  void stop() {
    if (service != null) {
      service.close();
    }
  }

  private static List<Document> documents(int count) {
    List<Document> docs = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      docs.add(
          Document.newBuilder()
              .setId(String.format("d%03d", i))
              .setText("apple number " + i)
              .build());
    }
    return docs;
  }

  private CollectionIngester ingester() {
    return new CollectionIngester(service.client(), 10, 60, Duration.ofMillis(1));
  }

  /** The collection holds each of the documents exactly once. */
  private void assertHoldsExactly(List<Document> docs) {
    var collection = service.catalog.get("c", "collection");
    assertThat(collection.size()).isEqualTo(docs.size());
    var search = SearchRequest.topK(List.of(new LexicalQuery("apple")), 1_000);
    assertThat(collection.search(search, Cancellation.NEVER).rankings().getFirst())
        .extracting(Hit::docId)
        .containsExactlyInAnyOrderElementsOf(docs.stream().map(Document::getId).toList());
  }

  @Test
  void aBatchEndsBeforeTheDocumentThatWouldPassItsByteLimit() throws Exception {
    Faults faults = start(Fault.NONE, 0);
    // Documents of 1.1 MiB: three make a batch under the limit, a fourth would pass it.
    String big = "apple " + "pear ".repeat((int) (1.1 * (1 << 20) / 5));
    List<Document> docs = new ArrayList<>();
    for (int i = 0; i < 7; i++) {
      docs.add(Document.newBuilder().setId("big" + i).setText(big).build());
    }
    assertThat(3L * docs.getFirst().getSerializedSize())
        .isLessThan(CollectionIngester.MAX_BATCH_BYTES);
    assertThat(4L * docs.getFirst().getSerializedSize())
        .isGreaterThan(CollectionIngester.MAX_BATCH_BYTES);

    assertThat(ingester().ingest("c", docs)).isEqualTo(7);
    assertThat(faults.batchSizes).containsExactly(3, 3, 1);
    assertHoldsExactly(docs);
  }

  @Test
  void aLostAcknowledgementIsResumedByReSendingTheCommittedBatch() throws Exception {
    Faults faults = start(Fault.ACK_LOST, 1);
    List<Document> docs = documents(45);

    assertThat(ingester().ingest("c", docs)).isEqualTo(45);
    assertThat(faults.calls.get()).isEqualTo(2);
    assertHoldsExactly(docs);
  }

  @Test
  void aBatchLostOnTheWayIsResumedFromTheFirstUnacknowledgedBatch() throws Exception {
    Faults faults = start(Fault.BATCH_LOST, 2);
    List<Document> docs = documents(45);

    assertThat(ingester().ingest("c", docs)).isEqualTo(45);
    assertThat(faults.calls.get()).isEqualTo(3);
    assertHoldsExactly(docs);
  }

  @Test
  void aServiceThatStaysUnavailableFailsWithUnavailableAfterTheRetries() throws Exception {
    Faults faults = start(Fault.DEAD, Integer.MAX_VALUE);

    assertThatThrownBy(() -> ingester().ingest("c", documents(45)))
        .isInstanceOfSatisfying(
            StatusRuntimeException.class,
            e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE));
    assertThat(faults.calls.get()).isEqualTo(CollectionIngester.MAX_RETRIES + 1);
    assertHoldsExactly(List.of());
  }

  @Test
  void streamsThatKeepDyingStillGetEverythingInWhileEachMakesProgress() throws Exception {
    Faults faults = start(Fault.BATCH_LOST, Integer.MAX_VALUE);
    List<Document> docs = documents(95);

    // Every stream dies at its third batch after committing two: progress resets the retry count.
    assertThat(ingester().ingest("c", docs)).isEqualTo(95);
    assertThat(faults.calls.get()).isEqualTo(5);
    assertHoldsExactly(docs);
  }

  @Test
  void aRefusedBatchIsNotRetried() throws Exception {
    Faults faults = start(Fault.NONE, 0);
    List<Document> docs = new ArrayList<>(documents(15));
    docs.set(12, docs.get(12).toBuilder().setId("bad\nid").build());

    assertThatThrownBy(() -> ingester().ingest("c", docs))
        .isInstanceOfSatisfying(
            StatusRuntimeException.class,
            e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT));
    assertThat(faults.calls.get()).isEqualTo(1);
    assertHoldsExactly(docs.subList(0, 10));
  }

  @Test
  void anIngesterMergingAtTheEndAsksWithTheLastBatchAndLeavesOneSegment() throws Exception {
    Faults faults = start(Fault.NONE, 0);
    List<Document> docs = documents(45);
    ingester().ingest("c", docs.subList(0, 25));
    var collection = service.catalog.get("c", "collection");
    // A commit a batch: a segment each (10, 10 and 5 documents).
    assertThat(collection.segments()).isEqualTo(3);
    assertThat(faults.mergeAsked).containsOnly(false);
    faults.batchSizes.clear();
    faults.mergeAsked.clear();

    assertThat(ingester().mergingAtTheEnd().ingest("c", docs.subList(25, 45))).isEqualTo(45);
    assertThat(faults.batchSizes).containsExactly(10, 10);
    assertThat(faults.mergeAsked).containsExactly(false, true);
    assertThat(collection.segments()).isEqualTo(1);
    assertHoldsExactly(docs);
    assertThat(
            collection
                .search(
                    SearchRequest.topK(List.of(new LexicalQuery("apple")), 1_000),
                    Cancellation.NEVER)
                .rankings()
                .getFirst())
        .extracting(Hit::docId)
        .containsExactlyElementsOf(docs.stream().map(Document::getId).sorted().toList());
  }

  @Test
  void noDocumentsReportTheCollectionsCount() throws Exception {
    start(Fault.NONE, 0);
    ingester().ingest("c", documents(3));
    assertThat(ingester().ingest("c", List.of())).isEqualTo(3);
  }
}
