package dev.tenbin.client.index;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tenbin.client.CallPolicy;
import dev.tenbin.client.FakeService;
import dev.tenbin.client.TestServers;
import dev.tenbin.proto.index.v1.CollectionSpec;
import dev.tenbin.proto.index.v1.CreateCollectionRequest;
import dev.tenbin.proto.index.v1.FuseRequest;
import dev.tenbin.proto.index.v1.GetDocumentsRequest;
import dev.tenbin.proto.index.v1.IndexServiceGrpc;
import dev.tenbin.proto.index.v1.IngestRequest;
import dev.tenbin.proto.index.v1.IngestResponse;
import dev.tenbin.proto.index.v1.RescoreRequest;
import dev.tenbin.proto.index.v1.ResolveLanguageRequest;
import dev.tenbin.proto.index.v1.SearchRequest;
import io.grpc.Deadline;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.ClientCallStreamObserver;
import io.grpc.stub.ClientResponseObserver;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * {@link IndexClient}'s policy against a fake index service: reads are retried after UNAVAILABLE,
 * creating and dropping a collection and ingesting are not, and every call has the deadline.
 */
class IndexClientTest {
  private static final CallPolicy POLICY = new CallPolicy(Duration.ofSeconds(10), 3);

  @Test
  void readsAreRetriedAfterUnavailable() throws Exception {
    FakeService index =
        FakeService.failingFirst(IndexServiceGrpc.getServiceDescriptor(), 1, Status.UNAVAILABLE);
    try (var server = TestServers.inProcess(index)) {
      IndexClient client = new IndexClient(server.channel(), POLICY);
      Map<String, Runnable> reads =
          Map.of(
              "DescribeCollection", () -> client.describeCollection("c"),
              "ListCollections", client::listCollections,
              "ResolveLanguage",
                  () -> client.resolveLanguage(ResolveLanguageRequest.getDefaultInstance()),
              "Search", () -> client.search(SearchRequest.getDefaultInstance()),
              "Rescore", () -> client.rescore(RescoreRequest.getDefaultInstance()),
              "Fuse", () -> client.fuse(FuseRequest.getDefaultInstance()),
              "GetDocuments", () -> client.getDocuments(GetDocumentsRequest.getDefaultInstance()),
              "GetTermStatistics", () -> client.termStatistics("c", List.of("t")));
      reads.forEach(
          (method, read) -> {
            read.run();
            assertThat(index.calls(method))
                .as(method + ": refused once, then answered")
                .isEqualTo(2);
          });
    }
  }

  @Test
  void creatingAndDroppingACollectionAreNotRetried() throws Exception {
    FakeService index =
        FakeService.failingFirst(IndexServiceGrpc.getServiceDescriptor(), 1, Status.UNAVAILABLE);
    try (var server = TestServers.inProcess(index)) {
      IndexClient client = new IndexClient(server.channel(), POLICY);
      assertUnavailable(
          () ->
              client.createCollection(
                  CreateCollectionRequest.newBuilder()
                      .setSpec(CollectionSpec.newBuilder().setName("c"))
                      .build()));
      assertUnavailable(() -> client.dropCollection("c"));
      assertThat(index.calls("CreateCollection")).isEqualTo(1);
      assertThat(index.calls("DropCollection")).isEqualTo(1);
    }
  }

  private static void assertUnavailable(
      org.assertj.core.api.ThrowableAssert.ThrowingCallable call) {
    assertThatThrownBy(call)
        .isInstanceOfSatisfying(
            StatusRuntimeException.class,
            e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE));
  }

  @Test
  void anIngestStreamEndedWithUnavailableIsLeftToItsCaller() throws Exception {
    FakeService index =
        FakeService.failingFirst(IndexServiceGrpc.getServiceDescriptor(), 1, Status.UNAVAILABLE);
    try (var server = TestServers.inProcess(index)) {
      IndexClient client = new IndexClient(server.channel(), POLICY);
      CompletableFuture<Throwable> ended = new CompletableFuture<>();
      ClientCallStreamObserver<IngestRequest> batches =
          client.ingest(
              Deadline.after(10, TimeUnit.SECONDS),
              new ClientResponseObserver<IngestRequest, IngestResponse>() {
                @Override
                public void beforeStart(ClientCallStreamObserver<IngestRequest> requests) {}

                @Override
                public void onNext(IngestResponse value) {}

                @Override
                public void onError(Throwable t) {
                  ended.complete(t);
                }

                @Override
                public void onCompleted() {
                  ended.complete(null);
                }
              });
      batches.onNext(IngestRequest.newBuilder().setCollection("c").build());
      batches.onCompleted();
      assertThat(Status.fromThrowable(ended.get(5, TimeUnit.SECONDS)).getCode())
          .isEqualTo(Status.Code.UNAVAILABLE);
      Thread.sleep(500); // longer than a retry's first backoff
      assertThat(index.calls("Ingest")).isEqualTo(1);
    }
  }

  @Test
  void withPolicyCallsWithItsAttemptsAndDeadline() throws Exception {
    FakeService index =
        FakeService.failingFirst(IndexServiceGrpc.getServiceDescriptor(), 5, Status.UNAVAILABLE);
    try (var server = TestServers.inProcess(index)) {
      IndexClient client =
          IndexClient.of(server.channel()).withPolicy(new CallPolicy(Duration.ofSeconds(10), 2));
      assertUnavailable(() -> client.resolveLanguage(ResolveLanguageRequest.getDefaultInstance()));
      assertThat(index.calls("ResolveLanguage"))
          .as("two attempts, not the default four")
          .isEqualTo(2);
    }
    FakeService silent = FakeService.silent(IndexServiceGrpc.getServiceDescriptor());
    try (var server = TestServers.inProcess(silent)) {
      IndexClient client =
          IndexClient.of(server.channel()).withPolicy(new CallPolicy(Duration.ofMillis(250), 1));
      long start = System.nanoTime();
      assertThatThrownBy(() -> client.search(SearchRequest.getDefaultInstance()))
          .isInstanceOfSatisfying(
              StatusRuntimeException.class,
              e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.DEADLINE_EXCEEDED));
      assertThat(Duration.ofNanos(System.nanoTime() - start).toMillis()).isBetween(240L, 5_000L);
    }
  }

  @Test
  void everyCallHasTheDeadline() throws Exception {
    FakeService index = FakeService.silent(IndexServiceGrpc.getServiceDescriptor());
    try (var server = TestServers.inProcess(index)) {
      IndexClient client =
          new IndexClient(server.channel(), POLICY).withDeadline(Duration.ofMillis(250));
      long start = System.nanoTime();
      assertThatThrownBy(() -> client.search(SearchRequest.getDefaultInstance()))
          .isInstanceOfSatisfying(
              StatusRuntimeException.class,
              e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.DEADLINE_EXCEEDED));
      assertThatThrownBy(() -> client.dropCollection("c"))
          .isInstanceOfSatisfying(
              StatusRuntimeException.class,
              e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.DEADLINE_EXCEEDED));
      assertThat(Duration.ofNanos(System.nanoTime() - start).toMillis()).isBetween(480L, 5_000L);
      assertThat(index.calls("Search")).as("DEADLINE_EXCEEDED is not retried").isEqualTo(1);
    }
  }
}
