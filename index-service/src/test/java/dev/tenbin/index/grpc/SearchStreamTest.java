package dev.tenbin.index.grpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tenbin.client.index.IndexClient;
import dev.tenbin.client.index.SearchStream;
import dev.tenbin.index.server.IndexServer;
import dev.tenbin.proto.index.v1.CollectionSpec;
import dev.tenbin.proto.index.v1.CreateCollectionRequest;
import dev.tenbin.proto.index.v1.Document;
import dev.tenbin.proto.index.v1.Family;
import dev.tenbin.proto.index.v1.IndexServiceGrpc;
import dev.tenbin.proto.index.v1.IngestRequest;
import dev.tenbin.proto.index.v1.Query;
import dev.tenbin.proto.index.v1.SearchRequest;
import dev.tenbin.proto.index.v1.SearchResponse;
import dev.tenbin.proto.index.v1.SearchStreamRequest;
import dev.tenbin.proto.index.v1.SearchStreamResponse;
import dev.tenbin.rpc.ClientChannels;
import dev.tenbin.rpc.ClientSecurity;
import dev.tenbin.rpc.ServiceTarget;
import dev.tenbin.rpc.StatusMapper;
import io.grpc.Deadline;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.grpc.stub.ClientCallStreamObserver;
import io.grpc.stub.ClientResponseObserver;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntSupplier;
import java.util.stream.LongStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * SearchStream over an in-process server: each request answered as Search answers it, in order; a
 * failing request ends the stream with Search's status after the earlier answers; the service reads
 * no request ahead of a client that does not read its answers.
 */
class SearchStreamTest {
  private static final String[] WORDS = {
    "retrieval",
    "index",
    "query",
    "document",
    "score",
    "rank",
    "token",
    "passage",
    "answer",
    "batch",
    "lexical",
    "dense",
    "sparse",
    "vector",
    "collection",
    "ranking"
  };

  @TempDir Path dataDir;
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private IndexServer.Embedded server;
  private String serverName;
  private ManagedChannel channel;
  private IndexServiceGrpc.IndexServiceBlockingStub index;
  private IndexClient client;

  @BeforeEach
  void start() throws Exception {
    serverName = "search-stream-" + UUID.randomUUID();
    server = IndexServer.startInProcess(serverName, dataDir, registry);
    channel = InProcessChannelBuilder.forName(serverName).build();
    index = IndexServiceGrpc.newBlockingStub(channel).withDeadlineAfter(60, TimeUnit.SECONDS);
    client = IndexClient.of(channel);
    index.createCollection(
        CreateCollectionRequest.newBuilder()
            .setSpec(CollectionSpec.newBuilder().setName("c").setLanguage("en"))
            .build());
    Random random = new Random(7);
    IngestRequest.Builder batch = IngestRequest.newBuilder().setCollection("c");
    for (int d = 0; d < 300; d++) {
      StringBuilder text = new StringBuilder();
      for (int w = 0; w < 3 + random.nextInt(12); w++) {
        text.append(WORDS[random.nextInt(WORDS.length)]).append(' ');
      }
      batch.addDocuments(Document.newBuilder().setId("d" + d).setText(text.toString()));
    }
    new IngestClient(channel).send(batch.build());
  }

  @AfterEach
  void stop() {
    channel.shutdownNow();
    server.close();
  }

  private static SearchRequest bm25(String collection, int topK, String text) {
    return SearchRequest.newBuilder()
        .setCollection(collection)
        .setFamily(Family.FAMILY_BM25)
        .setTopK(topK)
        .addQueries(Query.newBuilder().setId("q").setText(text))
        .build();
  }

  private static List<SearchRequest> queries(int count) {
    Random random = new Random(11);
    List<SearchRequest> requests = new ArrayList<>();
    for (int q = 0; q < count; q++) {
      String text = WORDS[random.nextInt(WORDS.length)] + " " + WORDS[random.nextInt(WORDS.length)];
      requests.add(bm25("c", 1 + random.nextInt(40), text));
    }
    return requests;
  }

  private static SearchStreamRequest carrying(SearchRequest request) {
    return SearchStreamRequest.newBuilder().setRequest(request).build();
  }

  /** The answers and the end of one raw stream. */
  private static final class Collected {
    final List<SearchStreamResponse> answers = new CopyOnWriteArrayList<>();
    final CompletableFuture<Void> done = new CompletableFuture<>();
    ClientCallStreamObserver<SearchStreamRequest> requests;

    /** The status the stream ended with (OK when it completed). */
    Status status() throws Exception {
      try {
        done.get(60, TimeUnit.SECONDS);
        return Status.OK;
      } catch (ExecutionException e) {
        return Status.fromThrowable(e.getCause());
      }
    }

    Throwable failure() throws Exception {
      try {
        done.get(60, TimeUnit.SECONDS);
        return null;
      } catch (ExecutionException e) {
        return e.getCause();
      }
    }
  }

  /** Opens a raw stream; {@code initialAnswers} answers are asked for, more by {@code request}. */
  private Collected open(int initialAnswers) {
    return open(channel, initialAnswers);
  }

  private static Collected open(io.grpc.Channel on, int initialAnswers) {
    Collected collected = new Collected();
    IndexServiceGrpc.newStub(on)
        .withDeadlineAfter(60, TimeUnit.SECONDS)
        .searchStream(
            new ClientResponseObserver<SearchStreamRequest, SearchStreamResponse>() {
              @Override
              public void beforeStart(ClientCallStreamObserver<SearchStreamRequest> stream) {
                stream.disableAutoRequestWithInitial(initialAnswers);
                collected.requests = stream;
              }

              @Override
              public void onNext(SearchStreamResponse answer) {
                collected.answers.add(answer);
              }

              @Override
              public void onError(Throwable t) {
                collected.done.completeExceptionally(t);
              }

              @Override
              public void onCompleted() {
                collected.done.complete(null);
              }
            });
    return collected;
  }

  private static void awaitAtLeast(IntSupplier count, int expected) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (count.getAsInt() < expected && System.nanoTime() < deadline) {
      Thread.sleep(5);
    }
    assertThat(count.getAsInt()).isGreaterThanOrEqualTo(expected);
  }

  /** Requests of {@code method} the service has read (gRPC's server metrics). */
  private double requestsRead(String method) {
    Counter read = registry.find("grpc.server.requests.received").tag("method", method).counter();
    return read == null ? 0 : read.count();
  }

  @Test
  void manyQueriesOnOneStreamAreAnsweredInOrderExactlyAsSearchAnswersThem() {
    List<SearchRequest> requests = queries(200);
    List<SearchResponse> unary = requests.stream().map(index::search).toList();

    List<SearchResponse> streamed = new ArrayList<>();
    try (SearchStream stream = client.searchStream()) {
      for (SearchRequest request : requests) {
        streamed.add(stream.search(request));
      }
    }

    assertThat(streamed).hasSameSizeAs(unary);
    for (int q = 0; q < requests.size(); q++) {
      // Protobuf equality compares floats by their bits: same ids, ranks and identical scores.
      assertThat(streamed.get(q).getRankingsList())
          .as("query %d", q)
          .isEqualTo(unary.get(q).getRankingsList());
    }
    assertThat(unary)
        .allSatisfy(r -> assertThat(r.getRankings(0).getDocumentsCount()).isPositive());
  }

  @Test
  void aStreamHandedBackByAStoppingServiceResumesOnTheRestartedOneWithEveryAnswerOnceInOrder()
      throws Exception {
    List<SearchRequest> requests = queries(10);
    List<SearchResponse> unary = requests.stream().map(index::search).toList();

    List<SearchResponse> streamed = new ArrayList<>();
    try (SearchStream stream = client.searchStream()) {
      for (int q = 0; q < 5; q++) {
        streamed.add(stream.search(requests.get(q)));
      }
      // A rolling update: the service stops (the stream is handed back UNAVAILABLE with a
      // RetryInfo), the next requests are sent meanwhile, and the service starts again on its data.
      server.close();
      for (int q = 5; q < 10; q++) {
        stream.send(requests.get(q));
      }
      server = IndexServer.startInProcess(serverName, dataDir, registry);
      for (int q = 5; q < 10; q++) {
        streamed.add(stream.next());
      }
    }

    assertThat(streamed).hasSize(10);
    for (int q = 0; q < requests.size(); q++) {
      assertThat(streamed.get(q).getRankingsList())
          .as("query %d", q)
          .isEqualTo(unary.get(q).getRankingsList());
    }
  }

  @Test
  void answersReachTheCallerWithoutPassingThroughTheChannelsExecutor() throws Exception {
    // The stream's observer only queues each answer for the caller, so it runs on the thread the
    // answer arrived on: a thread of the channel's executor woken per answer would only hand it on.
    AtomicInteger executorTasks = new AtomicInteger();
    ExecutorService pool = Executors.newCachedThreadPool();
    ManagedChannel counted =
        InProcessChannelBuilder.forName(serverName)
            .executor(
                task -> {
                  executorTasks.incrementAndGet();
                  pool.execute(task);
                })
            .build();
    try {
      IndexClient countedClient = IndexClient.of(counted);
      List<SearchRequest> requests = queries(50);
      // The channel connects on its first call; count only what the stream's answers cost.
      IndexServiceGrpc.newBlockingStub(counted).search(requests.getFirst());
      executorTasks.set(0);
      List<SearchResponse> streamed = new ArrayList<>();
      try (SearchStream stream = countedClient.searchStream()) {
        for (SearchRequest request : requests) {
          streamed.add(stream.search(request));
        }
      }

      assertThat(streamed).hasSize(50);
      assertThat(streamed.get(9).getRankingsList())
          .isEqualTo(index.search(requests.get(9)).getRankingsList());
      assertThat(executorTasks.get()).isZero();
    } finally {
      counted.shutdownNow();
      pool.shutdownNow();
    }
  }

  @Test
  void pipelinedRequestsAreAnsweredInTheOrderSentExactlyAsSearchAnswersThem() {
    List<SearchRequest> requests = queries(120);
    List<SearchResponse> unary = requests.stream().map(index::search).toList();

    List<SearchResponse> pipelined = new ArrayList<>();
    try (SearchStream stream = client.searchStream()) {
      int sent = 0;
      for (; sent < 16; sent++) {
        stream.send(requests.get(sent));
      }
      // search() needs every earlier answer taken first.
      assertThatThrownBy(() -> stream.search(requests.getFirst()))
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("16 sent requests are unanswered");
      while (pipelined.size() < requests.size()) {
        pipelined.add(stream.next());
        if (sent < requests.size()) {
          stream.send(requests.get(sent++));
        }
      }
      assertThatThrownBy(stream::next)
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("no request is waiting");
      // With nothing in flight, one-at-a-time searches work again on the same stream.
      assertThat(stream.search(requests.get(7)).getRankingsList())
          .isEqualTo(unary.get(7).getRankingsList());
    }
    for (int q = 0; q < requests.size(); q++) {
      assertThat(pipelined.get(q).getRankingsList())
          .as("query %d", q)
          .isEqualTo(unary.get(q).getRankingsList());
    }
  }

  @Test
  void aBadRequestMidStreamEndsItWithSearchsStatusAfterTheEarlierAnswers() throws Exception {
    SearchRequest bad = bm25("c", 0, "retrieval");
    StatusRuntimeException unaryFailure =
        org.assertj.core.api.Assertions.catchThrowableOfType(
            StatusRuntimeException.class, () -> index.search(bad));
    Collected stream = open(100);
    List<SearchRequest> good = queries(3);
    for (SearchRequest request : good) {
      stream.requests.onNext(carrying(request));
    }
    stream.requests.onNext(carrying(bad));
    stream.requests.onNext(carrying(good.getFirst()));
    stream.requests.onCompleted();

    Throwable failure = stream.failure();
    assertThat(Status.fromThrowable(failure).getCode())
        .isEqualTo(unaryFailure.getStatus().getCode())
        .isEqualTo(Status.Code.INVALID_ARGUMENT);
    assertThat(Status.fromThrowable(failure).getDescription())
        .isEqualTo(unaryFailure.getStatus().getDescription());
    assertThat(StatusMapper.violatedField(unaryFailure)).isEqualTo("top_k");
    assertThat(StatusMapper.violatedField(failure)).isEqualTo("request.top_k");
    assertThat(stream.answers)
        .extracting(SearchStreamResponse::getSequence)
        .containsExactly(1L, 2L, 3L);
    for (int q = 0; q < good.size(); q++) {
      assertThat(stream.answers.get(q).getResponse().getRankingsList())
          .isEqualTo(index.search(good.get(q)).getRankingsList());
    }
  }

  @Test
  void theClientThrowsTheFailingSearchsStatusAndTheSameForEverySearchAfterIt() {
    try (SearchStream stream = client.searchStream()) {
      assertThat(stream.search(bm25("c", 5, "retrieval")).getRankings(0).getDocumentsCount())
          .isEqualTo(5);
      assertThatThrownBy(
              () ->
                  stream.search(
                      bm25("c", 5, "index").toBuilder()
                          .setFamily(Family.FAMILY_UNSPECIFIED)
                          .build()))
          .isInstanceOfSatisfying(
              StatusRuntimeException.class,
              e -> {
                assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
                assertThat(StatusMapper.violatedField(e)).isEqualTo("request.family");
              });
      assertThatThrownBy(() -> stream.search(bm25("c", 5, "retrieval")))
          .isInstanceOfSatisfying(
              StatusRuntimeException.class,
              e -> assertThat(StatusMapper.violatedField(e)).isEqualTo("request.family"));
    }
    assertThat(requestsRead("SearchStream")).isEqualTo(2);
  }

  @Test
  void anUnknownCollectionIsNotFoundNamingTheRequestsCollection() throws Exception {
    Collected stream = open(10);
    stream.requests.onNext(carrying(bm25("nope", 5, "retrieval")));
    stream.requests.onCompleted();

    Throwable failure = stream.failure();
    assertThat(Status.fromThrowable(failure).getCode()).isEqualTo(Status.Code.NOT_FOUND);
    assertThat(StatusMapper.violatedField(failure)).isEqualTo("request.collection");
    assertThat(stream.answers).isEmpty();
  }

  @Test
  void aRequestNamingAnotherCollectionThanTheFirstIsInvalidArgument() throws Exception {
    index.createCollection(
        CreateCollectionRequest.newBuilder()
            .setSpec(CollectionSpec.newBuilder().setName("other").setLanguage("en"))
            .build());
    Collected stream = open(10);
    stream.requests.onNext(carrying(bm25("c", 5, "retrieval")));
    stream.requests.onNext(carrying(bm25("other", 5, "retrieval")));
    stream.requests.onCompleted();

    Throwable failure = stream.failure();
    assertThat(Status.fromThrowable(failure).getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
    assertThat(StatusMapper.violatedField(failure)).isEqualTo("request.collection");
    assertThat(stream.answers).hasSize(1);
  }

  @Test
  void aMessageWithoutARequestIsInvalidArgumentNamingRequest() throws Exception {
    Collected stream = open(10);
    stream.requests.onNext(SearchStreamRequest.getDefaultInstance());
    stream.requests.onCompleted();

    Throwable failure = stream.failure();
    assertThat(Status.fromThrowable(failure).getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
    assertThat(StatusMapper.violatedField(failure)).isEqualTo("request");
  }

  @Test
  void aStreamWithNoRequestEndsOkWithNoAnswer() throws Exception {
    Collected stream = open(10);
    stream.requests.onCompleted();

    assertThat(stream.status().isOk()).isTrue();
    assertThat(stream.answers).isEmpty();
    try (SearchStream unused = client.searchStream()) {
      // Closing a client stream that sent nothing ends it without an error.
    }
  }

  @Test
  void aClientThatReadsNoAnswersStopsTheStreamAfterTheAnswersItAskedFor() throws Exception {
    List<SearchRequest> requests = queries(20);
    Collected stream = open(1);
    for (SearchRequest request : requests) {
      stream.requests.onNext(carrying(request));
    }

    awaitAtLeast(stream.answers::size, 1);
    // A service reading ahead without bound would have searched every request and queued 19
    // answers by now; this one reads one request ahead of the one it searches.
    Thread.sleep(300);
    assertThat(stream.answers).hasSize(1);
    assertThat(requestsRead("SearchStream")).isEqualTo(2);

    stream.requests.request(requests.size());
    stream.requests.onCompleted();
    assertThat(stream.status().isOk()).isTrue();
    assertThat(stream.answers)
        .extracting(SearchStreamResponse::getSequence)
        .containsExactlyElementsOf(LongStream.rangeClosed(1, requests.size()).boxed().toList());
    assertThat(requestsRead("SearchStream")).isEqualTo(requests.size());
  }

  @Test
  void theDeadlineCoversTheWholeStreamAndEndsIt() throws Exception {
    index.search(bm25("c", 3, "retrieval")); // warm, so that the first streamed search is quick
    try (SearchStream stream = client.searchStream(Deadline.after(1, TimeUnit.SECONDS))) {
      assertThat(stream.search(bm25("c", 3, "retrieval")).getRankings(0).getDocumentsCount())
          .isEqualTo(3);
      Thread.sleep(1_500);
      assertThatThrownBy(() -> stream.search(bm25("c", 3, "retrieval")))
          .isInstanceOfSatisfying(
              StatusRuntimeException.class,
              e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.DEADLINE_EXCEEDED));
    }
  }

  @Test
  void aCancelledStreamEndsOnTheServerAndGivesBackTheCallItWasAdmittedAs(@TempDir Path network)
      throws Exception {
    IndexServer options = new IndexServer();
    new CommandLine(options)
        .parseArgs(
            "--data-dir",
            network.toString(),
            "--port",
            "0",
            "--metrics-port",
            "-1",
            "--max-concurrent-calls",
            "1");
    try (IndexServer.Embedded running = IndexServer.start(options.config())) {
      ManagedChannel loopback =
          ClientChannels.open(
              ServiceTarget.parse("--index-endpoint", "127.0.0.1:" + running.host().port()),
              ClientSecurity.plaintext(),
              64 * 1024 * 1024);
      try {
        var net =
            IndexServiceGrpc.newBlockingStub(loopback).withDeadlineAfter(60, TimeUnit.SECONDS);
        net.createCollection(
            CreateCollectionRequest.newBuilder()
                .setSpec(CollectionSpec.newBuilder().setName("c").setLanguage("en"))
                .build());
        new IngestClient(loopback)
            .send(
                IngestRequest.newBuilder()
                    .setCollection("c")
                    .addDocuments(Document.newBuilder().setId("a").setText("retrieval index"))
                    .addDocuments(Document.newBuilder().setId("b").setText("retrieval query"))
                    .build());
        Gauge active = running.host().registry().get("tenbin.rpc.calls.active").gauge();

        Collected stream = open(loopback, 10);
        stream.requests.onNext(carrying(bm25("c", 5, "retrieval")));
        awaitAtLeast(stream.answers::size, 1);
        assertThat(active.value()).isEqualTo(1);
        // The open stream is the one call the service admits.
        assertThatThrownBy(() -> net.search(bm25("c", 5, "retrieval")))
            .isInstanceOfSatisfying(
                StatusRuntimeException.class,
                e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED));

        stream.requests.cancel("done with it", null);
        assertThat(stream.status().getCode()).isEqualTo(Status.Code.CANCELLED);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (active.value() > 0 && System.nanoTime() < deadline) {
          Thread.sleep(5);
        }
        assertThat(active.value()).as("the stream's call ended on the server").isZero();
        assertThat(net.search(bm25("c", 5, "retrieval")).getRankings(0).getDocumentsCount())
            .isEqualTo(2);
      } finally {
        loopback.shutdownNow();
      }
    }
  }
}
