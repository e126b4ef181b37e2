package dev.tenbin.integration.services;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenbin.client.index.IndexClient;
import dev.tenbin.client.index.SearchStream;
import dev.tenbin.eval.retrieval.CollectionIngester;
import dev.tenbin.eval.retrieval.IndexSession;
import dev.tenbin.eval.services.IndexPlacement;
import dev.tenbin.index.collection.CollectionCatalog;
import dev.tenbin.index.config.IndexServiceConfig;
import dev.tenbin.index.server.IndexServer;
import dev.tenbin.proto.index.v1.CollectionSpec;
import dev.tenbin.proto.index.v1.CreateCollectionRequest;
import dev.tenbin.proto.index.v1.DescribeCollectionRequest;
import dev.tenbin.proto.index.v1.Document;
import dev.tenbin.proto.index.v1.DropCollectionRequest;
import dev.tenbin.proto.index.v1.Family;
import dev.tenbin.proto.index.v1.IndexServiceGrpc;
import dev.tenbin.proto.index.v1.Query;
import dev.tenbin.proto.index.v1.ResolveLanguageRequest;
import dev.tenbin.proto.index.v1.SearchRequest;
import dev.tenbin.rpc.ClientChannels;
import dev.tenbin.rpc.ClientSecurity;
import dev.tenbin.rpc.GrpcServerHost;
import dev.tenbin.rpc.KeyRoutedChannel;
import dev.tenbin.rpc.ServerSettings;
import dev.tenbin.rpc.ServiceEndpoint;
import dev.tenbin.rpc.ServiceTarget;
import io.grpc.BindableService;
import io.grpc.ForwardingServerCallListener;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.ServerInterceptors;
import io.grpc.ServerServiceDefinition;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two real index servers (Netty on loopback) as the pods of one StatefulSet, reached through the
 * orchestrator's {@link IndexPlacement}: every call about a collection reaches the pod rendezvous
 * hashing places it on, and ten collections spread over both pods.
 */
class IndexPlacementTest {
  @TempDir Path tmp;

  /** The pods' names as the chart renders them for --index-pods: what placement hashes. */
  private static final String POD_0 = "tenbin-index-0.tenbin-index-headless:50052";

  private static final String POD_1 = "tenbin-index-1.tenbin-index-headless:50052";

  private Pod first;
  private Pod second;
  private KeyRoutedChannel channel;

  /** A real index server recording, for each call, its method and the collection it names. */
  private static final class Pod implements AutoCloseable {
    final List<String> calls = new CopyOnWriteArrayList<>();
    final GrpcServerHost host;

    Pod(Path data) {
      CollectionCatalog catalog = CollectionCatalog.open(data);
      List<BindableService> recorded = new ArrayList<>();
      for (BindableService service :
          IndexServer.services(catalog, IndexServiceConfig.embedded(data))) {
        ServerServiceDefinition definition =
            ServerInterceptors.intercept(service.bindService(), new Recording(calls));
        recorded.add(() -> definition);
      }
      host = GrpcServerHost.start(ServerSettings.ephemeral(), recorded).owning(catalog);
    }

    /** This pod's address on loopback, as --index-pods would give it. */
    String address() {
      return "127.0.0.1:" + host.port();
    }

    /** The calls this pod served about {@code collection}, as {@code Method}. */
    List<String> callsAbout(String collection) {
      return calls.stream()
          .filter(call -> call.endsWith(" " + collection))
          .map(call -> call.substring(0, call.indexOf(' ')))
          .toList();
    }

    @Override
    public void close() {
      host.close();
    }
  }

  private record Recording(List<String> calls) implements ServerInterceptor {
    @Override
    public <ReqT, RespT> ServerCall.Listener<ReqT> interceptCall(
        ServerCall<ReqT, RespT> call, Metadata headers, ServerCallHandler<ReqT, RespT> next) {
      String method = call.getMethodDescriptor().getBareMethodName();
      return new ForwardingServerCallListener.SimpleForwardingServerCallListener<>(
          next.startCall(call, headers)) {
        @Override
        public void onMessage(ReqT message) {
          calls.add(method + " " + IndexPlacement.collectionOf(message));
          super.onMessage(message);
        }
      };
    }
  }

  @BeforeEach
  void startTwoPods() {
    first = new Pod(tmp.resolve("index-0"));
    second = new Pod(tmp.resolve("index-1"));
    // The chart's pod names, each dialled on its loopback server (what cluster DNS does): the
    // placement, and so the split printed below, is the one a two-pod StatefulSet gets.
    channel =
        IndexPlacement.open(
            List.of(POD_0, POD_1),
            pod ->
                ClientChannels.open(
                    ServiceTarget.parse(
                        "--index-pods", (pod.equals(POD_0) ? first : second).address()),
                    ClientSecurity.plaintext(),
                    64 * 1024 * 1024));
  }

  @AfterEach
  void stop() throws InterruptedException {
    channel.shutdown();
    assertThat(channel.awaitTermination(10, TimeUnit.SECONDS))
        .as("the placement's channels, one per pod, all close")
        .isTrue();
    first.close();
    second.close();
  }

  private static List<Document> documents(String collection) {
    return IntStream.range(0, 5)
        .mapToObj(
            i ->
                Document.newBuilder()
                    .setId(collection + "-d" + i)
                    .setText("apples pears and plums number " + i)
                    .build())
        .toList();
  }

  @Test
  void everyCallAboutACollectionReachesItsPodAndTenCollectionsSpreadOverBoth() {
    var index = IndexServiceGrpc.newBlockingStub(channel);
    List<String> names = IntStream.range(0, 10).mapToObj(i -> "collection-" + i).toList();
    for (String name : names) {
      index
          .withDeadlineAfter(30, TimeUnit.SECONDS)
          .createCollection(
              CreateCollectionRequest.newBuilder()
                  .setSpec(CollectionSpec.newBuilder().setName(name).setLanguage("en"))
                  .build());
      // The orchestrator's streaming ingester, two documents a message: three messages, one stream.
      long count =
          new CollectionIngester(IndexClient.of(channel), 2, 30).ingest(name, documents(name));
      assertThat(count).isEqualTo(5);
      for (int search = 0; search < 2; search++) {
        var response =
            index
                .withDeadlineAfter(30, TimeUnit.SECONDS)
                .search(
                    SearchRequest.newBuilder()
                        .setCollection(name)
                        .setFamily(Family.FAMILY_BM25)
                        .setTopK(3)
                        .addQueries(Query.newBuilder().setId("q").setText("plums"))
                        .build());
        assertThat(response.getRankings(0).getDocumentsCount()).isEqualTo(3);
      }
      // A search stream goes where its first request's collection lives, for all its requests.
      try (SearchStream stream = IndexClient.of(channel).searchStream()) {
        for (int search = 0; search < 2; search++) {
          var response =
              stream.search(
                  SearchRequest.newBuilder()
                      .setCollection(name)
                      .setFamily(Family.FAMILY_BM25)
                      .setTopK(2)
                      .addQueries(Query.newBuilder().setId("q").setText("pears"))
                      .build());
          assertThat(response.getRankings(0).getDocumentsCount()).isEqualTo(2);
        }
      }
      assertThat(
              index
                  .describeCollection(DescribeCollectionRequest.newBuilder().setName(name).build())
                  .getCollection()
                  .getDocumentCount())
          .isEqualTo(5);
      assertThat(
              index
                  .getDocuments(
                      dev.tenbin.proto.index.v1.GetDocumentsRequest.newBuilder()
                          .setCollection(name)
                          .addIds(name + "-d3")
                          .build())
                  .getDocuments(0)
                  .getText())
          .isEqualTo("apples pears and plums number 3");
      index.dropCollection(DropCollectionRequest.newBuilder().setName(name).build());
    }

    Map<String, List<String>> placed = new TreeMap<>();
    for (String name : names) {
      Pod owner = channel.nodeOf(name).equals(POD_0) ? first : second;
      Pod other = owner == first ? second : first;
      assertThat(owner.callsAbout(name))
          .as("every call about %s, on the pod rendezvous hashing places it on", name)
          .containsExactly(
              "CreateCollection",
              "Ingest",
              "Ingest",
              "Ingest",
              "Search",
              "Search",
              "SearchStream",
              "SearchStream",
              "DescribeCollection",
              "GetDocuments",
              "DropCollection");
      assertThat(other.callsAbout(name)).as("no call about %s on the other pod", name).isEmpty();
      placed.computeIfAbsent(owner == first ? "pod 0" : "pod 1", k -> new ArrayList<>()).add(name);
    }
    System.out.println("ten collections over two index pods: " + placed);
    assertThat(placed).as("both pods hold collections").containsOnlyKeys("pod 0", "pod 1");
  }

  @Test
  void callsAboutNoCollectionGoToThePodsInTurn() {
    var index = IndexServiceGrpc.newBlockingStub(channel);
    for (int i = 0; i < 4; i++) {
      index.resolveLanguage(ResolveLanguageRequest.newBuilder().setLanguage("de").build());
    }
    assertThat(first.callsAbout("null")).containsExactly("ResolveLanguage", "ResolveLanguage");
    assertThat(second.callsAbout("null")).containsExactly("ResolveLanguage", "ResolveLanguage");
  }

  @Test
  void anEvaluationsIndexSessionWorksThroughThePlacement() {
    try (IndexSession session =
        new IndexSession(IndexClient.of(channel), IndexSession.Shape.bm25("en", null))) {
      session.ingest(documents("session"));
      var rankings =
          session.search(
              Family.FAMILY_BM25,
              List.of(Query.newBuilder().setId("q").setText("plums").build()),
              null,
              5);
      assertThat(rankings.get("q")).hasSize(5);
    }
    List<String> all = new ArrayList<>(first.calls);
    all.addAll(second.calls);
    String collection = all.getFirst().substring(all.getFirst().indexOf(' ') + 1);
    Pod owner = channel.nodeOf(collection).equals(POD_0) ? first : second;
    assertThat(owner.callsAbout(collection))
        .containsExactly("CreateCollection", "Ingest", "Search", "DropCollection");
  }

  @Test
  void theFlagsPodsAreDialledAndPlacedByTheirHostAndPort() throws InterruptedException {
    KeyRoutedChannel byFlag =
        IndexPlacement.open(
            ServiceEndpoint.pods("--index-pods", List.of(first.address(), second.address())),
            64 * 1024 * 1024);
    try {
      assertThat(byFlag.placement().nodes()).containsExactly(first.address(), second.address());
      String name = "by-flag";
      IndexServiceGrpc.newBlockingStub(byFlag)
          .createCollection(
              CreateCollectionRequest.newBuilder()
                  .setSpec(CollectionSpec.newBuilder().setName(name).setLanguage("en"))
                  .build());
      Pod owner = byFlag.nodeOf(name).equals(first.address()) ? first : second;
      assertThat(owner.callsAbout(name)).containsExactly("CreateCollection");
    } finally {
      byFlag.shutdown();
      byFlag.awaitTermination(10, TimeUnit.SECONDS);
    }
  }

  @Test
  void aPodListOfOneIsAPlainChannelAndDnsTargetsAreNotPods() {
    assertThat(ServiceEndpoint.pods("--index-pods", List.of("a:1")).placed()).isFalse();
    assertThat(ServiceEndpoint.pods("--index-pods", List.of("a:1", "b:1")).targets())
        .containsExactly(ServiceTarget.direct("a", 1), ServiceTarget.direct("b", 1));
    org.assertj.core.api.Assertions.assertThatThrownBy(
            () -> ServiceEndpoint.pods("--index-pods", List.of("a:1", "a:1")))
        .hasMessageContaining("names a pod twice");
    org.assertj.core.api.Assertions.assertThatThrownBy(
            () -> ServiceEndpoint.pods("--index-pods", List.of("dns:///a:1")))
        .hasMessageContaining("--index-pods");
  }
}
