package dev.tenbin.index.fuzz;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.tenbin.index.server.IndexServer;
import dev.tenbin.proto.common.v1.DenseVector;
import dev.tenbin.proto.common.v1.MultiVector;
import dev.tenbin.proto.common.v1.SparseVector;
import dev.tenbin.proto.index.v1.CollectionSpec;
import dev.tenbin.proto.index.v1.CreateCollectionRequest;
import dev.tenbin.proto.index.v1.DescribeCollectionRequest;
import dev.tenbin.proto.index.v1.Document;
import dev.tenbin.proto.index.v1.Family;
import dev.tenbin.proto.index.v1.IndexServiceGrpc;
import dev.tenbin.proto.index.v1.IngestRequest;
import dev.tenbin.proto.index.v1.ListCollectionsRequest;
import dev.tenbin.proto.index.v1.Query;
import dev.tenbin.proto.index.v1.SearchRequest;
import dev.tenbin.testing.fuzz.ProtoFuzz;
import dev.tenbin.testing.fuzz.RpcFuzzer;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * Fuzzes every RPC of the index service in-process on a temporary data folder: create, ingest,
 * search, rescore, fuse, describe, list and drop with hostile messages, against collections of
 * every family that exist. Contract: no INTERNAL or UNKNOWN, no hang, nothing written beside the
 * data folder, a refused one-batch ingest leaves every collection as it was (all or nothing), every
 * collection can still be described, and the service still lists its collections and answers a
 * search on a collection the fuzzer never touches, with every document it holds.
 */
class IndexRpcFuzzTest {
  private static final String PROBE = "probe-collection-never-fuzzed";
  private static final int DIMENSION = 4;
  private static Path root;
  private static Path data;
  private static IndexServer.Embedded server;
  private static ManagedChannel channel;
  private static RpcFuzzer fuzzer;

  @BeforeAll
  static void start() throws Exception {
    root = Files.createTempDirectory("index-fuzz");
    data = Files.createDirectories(root.resolve("data"));
    String name = "index-fuzz-" + UUID.randomUUID();
    server = IndexServer.startInProcess(name, data, new SimpleMeterRegistry());
    channel = InProcessChannelBuilder.forName(name).directExecutor().build();
    create(PROBE, "en", 0);
    ingest(PROBE, 0, "apple", "banana", "cherry");
    create("c1", "en", DIMENSION);
    ingest("c1", DIMENSION, "apple pie", "banana split", "cherry tart");
    create("c2", "ja", 0);
    ingest("c2", 0, "りんご", "バナナ");
    ProtoFuzz generator =
        new ProtoFuzz(
            Map.of(
                "name", List.of("c1", "c2", "c3", "fresh-collection"),
                "collection", List.of("c1", "c2", "c3"),
                "language", List.of("en", "ja", "zh", "ar", "de", "ko", "xx", "auto"),
                "id", List.of("d0", "d1", "d2", "q1"),
                "doc_id", List.of("d0", "d1", "d2"),
                "doc_ids", List.of("d0", "d1", "d2", "missing"),
                "query_id", List.of("q1", "q2"),
                "text", List.of("apple", "banana split", "りんご"),
                "title", List.of("Apple", "")));
    fuzzer =
        new RpcFuzzer(
            channel,
            IndexServiceGrpc.getServiceDescriptor(),
            generator,
            s -> s,
            Duration.ofSeconds(60));
  }

  @AfterAll
  static void stop() throws Exception {
    channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    server.close();
    try (var paths = Files.walk(root)) {
      for (Path path : paths.sorted(java.util.Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(path);
      }
    }
  }

  @FuzzTest
  void everyRpcAnswersHostileRequestsWithAClientStatus(FuzzedDataProvider data) throws Exception {
    Map<String, Long> before = documentCounts();
    RpcFuzzer.Outcome outcome = fuzzer.call(data);
    if (outcome != null
        && outcome.method().endsWith("/Ingest")
        && outcome.requests() == 1
        && outcome.code() != Status.Code.OK) {
      assertThat(documentCounts())
          .as("a refused one-batch ingest changes no collection (%s)", outcome)
          .isEqualTo(before);
    }
    try (var beside = Files.list(root)) {
      assertThat(beside.map(p -> p.getFileName().toString()))
          .as("nothing is written beside the data folder")
          .containsExactly("data");
    }
    var index = IndexServiceGrpc.newBlockingStub(channel).withDeadlineAfter(60, TimeUnit.SECONDS);
    assertThat(
            index.listCollections(ListCollectionsRequest.getDefaultInstance()).getCollectionsList())
        .anySatisfy(c -> assertThat(c.getSpec().getName()).isEqualTo(PROBE));
    var found =
        index.search(
            SearchRequest.newBuilder()
                .setCollection(PROBE)
                .setFamily(Family.FAMILY_BM25)
                .setTopK(10)
                .addQueries(Query.newBuilder().setId("q").setText("apple banana cherry"))
                .build());
    assertThat(found.getRankings(0).getDocumentsList())
        .extracting(d -> d.getDocId())
        .containsExactlyInAnyOrder("d0", "d1", "d2");
  }

  /**
   * The document count of each collection the fuzzer names, -1 when absent; never a server failure.
   */
  private static Map<String, Long> documentCounts() {
    Map<String, Long> counts = new java.util.TreeMap<>();
    var index = IndexServiceGrpc.newBlockingStub(channel);
    for (String name : List.of("c1", "c2", "c3")) {
      try {
        counts.put(
            name,
            index
                .withDeadlineAfter(60, TimeUnit.SECONDS)
                .describeCollection(DescribeCollectionRequest.newBuilder().setName(name).build())
                .getCollection()
                .getDocumentCount());
      } catch (StatusRuntimeException e) {
        assertThat(e.getStatus().getCode())
            .as("describing %s: %s", name, e.getStatus())
            .isEqualTo(Status.Code.NOT_FOUND);
        counts.put(name, -1L);
      }
    }
    return counts;
  }

  private static void create(String name, String language, int dimension) {
    IndexServiceGrpc.newBlockingStub(channel)
        .withDeadlineAfter(60, TimeUnit.SECONDS)
        .createCollection(
            CreateCollectionRequest.newBuilder()
                .setSpec(
                    CollectionSpec.newBuilder()
                        .setName(name)
                        .setLanguage(language)
                        .setDenseDimension(dimension)
                        .setSparseVocabularySize(dimension == 0 ? 0 : 16)
                        .setMultivectorDimension(dimension))
                .build());
  }

  /**
   * Documents d0, d1, ... with these texts, and vectors of every family when {@code dimension} > 0.
   */
  private static void ingest(String collection, int dimension, String... texts) {
    List<Document> documents = new ArrayList<>();
    for (int i = 0; i < texts.length; i++) {
      Document.Builder doc = Document.newBuilder().setId("d" + i).setText(texts[i]);
      if (dimension > 0) {
        DenseVector.Builder dense = DenseVector.newBuilder();
        MultiVector.Builder multi =
            MultiVector.newBuilder().setTokenCount(2).setDimension(dimension);
        for (int d = 0; d < dimension; d++) {
          dense.addValues(i + d * 0.5f + 0.25f);
          multi.addValues(d + i).addValues(d - i);
        }
        doc.setDense(dense)
            .setMultiVector(multi)
            .setSparse(SparseVector.newBuilder().addIndices(i).addValues(1f + i));
      }
      documents.add(doc.build());
    }
    try {
      send(IngestRequest.newBuilder().setCollection(collection).addAllDocuments(documents).build());
    } catch (StatusRuntimeException e) {
      throw new AssertionError("cannot set up " + collection + ": " + Status.fromThrowable(e), e);
    }
  }

  private static void send(IngestRequest request) {
    var done = new java.util.concurrent.CompletableFuture<Void>();
    var requests =
        IndexServiceGrpc.newStub(channel)
            .withDeadlineAfter(60, TimeUnit.SECONDS)
            .ingest(
                new io.grpc.stub.StreamObserver<>() {
                  @Override
                  public void onNext(dev.tenbin.proto.index.v1.IngestResponse value) {}

                  @Override
                  public void onError(Throwable t) {
                    done.completeExceptionally(t);
                  }

                  @Override
                  public void onCompleted() {
                    done.complete(null);
                  }
                });
    requests.onNext(request);
    requests.onCompleted();
    try {
      done.get(70, TimeUnit.SECONDS);
    } catch (java.util.concurrent.ExecutionException e) {
      throw Status.fromThrowable(e.getCause()).asRuntimeException();
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }
}
