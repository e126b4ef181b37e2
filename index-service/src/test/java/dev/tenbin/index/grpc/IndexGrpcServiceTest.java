package dev.tenbin.index.grpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tenbin.index.server.IndexServer;
import dev.tenbin.proto.index.v1.CollectionSpec;
import dev.tenbin.proto.index.v1.CreateCollectionRequest;
import dev.tenbin.proto.index.v1.DescribeCollectionRequest;
import dev.tenbin.proto.index.v1.Document;
import dev.tenbin.proto.index.v1.Family;
import dev.tenbin.proto.index.v1.IndexServiceGrpc;
import dev.tenbin.proto.index.v1.IngestRequest;
import dev.tenbin.proto.index.v1.IngestResponse;
import dev.tenbin.proto.index.v1.Query;
import dev.tenbin.proto.index.v1.SearchRequest;
import dev.tenbin.proto.index.v1.SearchResponse;
import dev.tenbin.rpc.StatusMapper;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthCheckResponse;
import io.grpc.health.v1.HealthGrpc;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.grpc.stub.StreamObserver;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class IndexGrpcServiceTest {
  @TempDir Path dataDir;
  private IndexServer.Embedded server;
  private ManagedChannel channel;
  private IndexServiceGrpc.IndexServiceBlockingStub index;

  @BeforeEach
  void start() {
    String name = "index-test-" + UUID.randomUUID();
    server = IndexServer.startInProcess(name, dataDir, new SimpleMeterRegistry());
    channel = InProcessChannelBuilder.forName(name).directExecutor().build();
    index = IndexServiceGrpc.newBlockingStub(channel).withDeadlineAfter(30, TimeUnit.SECONDS);
  }

  @AfterEach
  void stop() {
    channel.shutdownNow();
    server.close();
  }

  private void create(String name) {
    index.createCollection(
        CreateCollectionRequest.newBuilder()
            .setSpec(CollectionSpec.newBuilder().setName(name).setLanguage("en"))
            .build());
  }

  /** Streams the batches; returns the last acknowledgement, or throws the call's failure. */
  private IngestResponse ingest(IngestRequest... batches) throws Exception {
    java.util.List<IngestResponse> acks = new IngestClient(channel).send(batches);
    return acks.getLast();
  }

  /** The top 10 of collection "docs" for one BM25 query (id "q1"). */
  private SearchResponse searchDocs(String text) {
    return index.search(
        SearchRequest.newBuilder()
            .setCollection("docs")
            .setFamily(Family.FAMILY_BM25)
            .setTopK(10)
            .addQueries(Query.newBuilder().setId("q1").setText(text))
            .build());
  }

  private static Document doc(String id, String text) {
    return Document.newBuilder().setId(id).setText(text).build();
  }

  @Test
  void createIngestAndSearchReturnRankedScoresWithIdTieBreak() throws Exception {
    create("docs");
    IngestResponse ingested =
        ingest(
            IngestRequest.newBuilder()
                .setCollection("docs")
                .addDocuments(doc("b", "retrieval systems weighed"))
                .addDocuments(doc("a", "retrieval systems weighed"))
                .build(),
            IngestRequest.newBuilder().addDocuments(doc("c", "something else entirely")).build());
    assertThat(ingested.getDocumentsIngested()).isEqualTo(3);
    assertThat(ingested.getBatchesCommitted()).isEqualTo(2);

    SearchResponse response = searchDocs("weighing retrieval");
    var ranking = response.getRankings(0);
    assertThat(ranking.getQueryId()).isEqualTo("q1");
    assertThat(ranking.getDocumentsList()).extracting(d -> d.getDocId()).containsExactly("a", "b");
    assertThat(ranking.getDocuments(0).getScore())
        .isPositive()
        .isEqualTo(ranking.getDocuments(1).getScore());
    assertThat(ranking.getDocumentsList()).extracting(d -> d.getRank()).containsExactly(1, 2);
    assertThat(
            index
                .describeCollection(DescribeCollectionRequest.newBuilder().setName("docs").build())
                .getCollection()
                .getDocumentCount())
        .isEqualTo(3);
  }

  @Test
  void anIngestMessageAskingForAMergeIsAcknowledgedWithOneSegment() throws Exception {
    create("docs");
    java.util.List<IngestResponse> acks =
        new IngestClient(channel)
            .send(
                IngestRequest.newBuilder()
                    .setCollection("docs")
                    .addDocuments(doc("a", "retrieval systems weighed"))
                    .build(),
                IngestRequest.newBuilder().addDocuments(doc("b", "systems weighed")).build(),
                IngestRequest.newBuilder()
                    .addDocuments(doc("c", "weighed again"))
                    .setMergeSegments(true)
                    .build(),
                // An empty message may ask too; one segment stays one.
                IngestRequest.newBuilder().setMergeSegments(true).build());
    assertThat(acks).extracting(IngestResponse::getSegments).containsExactly(1, 2, 1, 1);
    assertThat(acks.getLast().getDocumentCount()).isEqualTo(3);
    SearchResponse response = searchDocs("weighed");
    assertThat(response.getRankings(0).getDocumentsList())
        .extracting(d -> d.getDocId())
        .containsExactlyInAnyOrder("a", "b", "c");
  }

  @Test
  void badTopKIsInvalidArgumentNamingTheField() {
    create("docs");
    assertThatThrownBy(
            () ->
                index.search(
                    SearchRequest.newBuilder()
                        .setCollection("docs")
                        .setFamily(Family.FAMILY_BM25)
                        .setTopK(0)
                        .addQueries(Query.newBuilder().setId("q").setText("x"))
                        .build()))
        .isInstanceOfSatisfying(
            StatusRuntimeException.class,
            e -> {
              assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
              assertThat(StatusMapper.violatedField(e)).isEqualTo("top_k");
            });
  }

  @Test
  void unknownCollectionIsNotFoundNamingTheField() {
    assertThatThrownBy(
            () ->
                index.search(
                    SearchRequest.newBuilder()
                        .setCollection("nope")
                        .setFamily(Family.FAMILY_BM25)
                        .setTopK(10)
                        .addQueries(Query.newBuilder().setId("q").setText("x"))
                        .build()))
        .isInstanceOfSatisfying(
            StatusRuntimeException.class,
            e -> {
              assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.NOT_FOUND);
              assertThat(StatusMapper.violatedField(e)).isEqualTo("collection");
            });
  }

  @Test
  void duplicateIdsInAnIngestStreamAreInvalidArgumentAndEarlierBatchesStay() {
    create("docs");
    assertThatThrownBy(
            () ->
                ingest(
                    IngestRequest.newBuilder()
                        .setCollection("docs")
                        .addDocuments(doc("a", "one"))
                        .build(),
                    IngestRequest.newBuilder().addDocuments(doc("a", "two")).build()))
        .isInstanceOfSatisfying(
            StatusRuntimeException.class,
            e -> {
              assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
              assertThat(StatusMapper.violatedField(e)).isEqualTo("documents[0].id");
            });
    assertThat(
            index
                .describeCollection(DescribeCollectionRequest.newBuilder().setName("docs").build())
                .getCollection()
                .getDocumentCount())
        .isEqualTo(1);
  }

  @Test
  void unknownLanguageIsInvalidArgument() {
    assertThatThrownBy(
            () ->
                index.createCollection(
                    CreateCollectionRequest.newBuilder()
                        .setSpec(
                            CollectionSpec.newBuilder().setName("x").setLanguage("xx-nonsense"))
                        .build()))
        .isInstanceOfSatisfying(
            StatusRuntimeException.class,
            e -> assertThat(StatusMapper.violatedField(e)).isEqualTo("spec.language"));
  }

  @Test
  void aFixedCandidateSetIsRescoredWithBm25AndUnknownIdsAreNamed() throws Exception {
    create("docs");
    ingest(
        IngestRequest.newBuilder()
            .setCollection("docs")
            .addDocuments(doc("a", "apple pie"))
            .addDocuments(doc("b", "apple apple pie"))
            .addDocuments(doc("c", "cherry"))
            .build());
    var response =
        index.rescore(
            dev.tenbin.proto.index.v1.RescoreRequest.newBuilder()
                .setCollection("docs")
                .setFamily(Family.FAMILY_BM25)
                .addCandidates(
                    dev.tenbin.proto.index.v1.CandidateList.newBuilder()
                        .setQuery(Query.newBuilder().setId("q").setText("apple"))
                        .addDocIds("c")
                        .addDocIds("a")
                        .addDocIds("b"))
                .build());
    assertThat(response.getRankings(0).getDocumentsList())
        .extracting(d -> d.getDocId())
        .containsExactly("b", "a", "c");
    assertThat(response.getRankings(0).getDocuments(2).getScore()).isZero();
    assertThatThrownBy(
            () ->
                index.rescore(
                    dev.tenbin.proto.index.v1.RescoreRequest.newBuilder()
                        .setCollection("docs")
                        .setFamily(Family.FAMILY_BM25)
                        .addCandidates(
                            dev.tenbin.proto.index.v1.CandidateList.newBuilder()
                                .setQuery(Query.newBuilder().setId("q").setText("apple"))
                                .addDocIds("zzz"))
                        .build()))
        .isInstanceOfSatisfying(
            StatusRuntimeException.class,
            e -> assertThat(StatusMapper.violatedField(e)).isEqualTo("candidates[0].doc_ids[0]"));
  }

  @Test
  void reflectionListsTheIndexService() throws Exception {
    CompletableFuture<io.grpc.reflection.v1.ServerReflectionResponse> listed =
        new CompletableFuture<>();
    StreamObserver<io.grpc.reflection.v1.ServerReflectionRequest> reflection =
        io.grpc.reflection.v1.ServerReflectionGrpc.newStub(channel)
            .serverReflectionInfo(
                new StreamObserver<>() {
                  @Override
                  public void onNext(io.grpc.reflection.v1.ServerReflectionResponse value) {
                    listed.complete(value);
                  }

                  @Override
                  public void onError(Throwable t) {
                    listed.completeExceptionally(t);
                  }

                  @Override
                  public void onCompleted() {}
                });
    reflection.onNext(
        io.grpc.reflection.v1.ServerReflectionRequest.newBuilder().setListServices("").build());
    reflection.onCompleted();
    assertThat(listed.get(5, TimeUnit.SECONDS).getListServicesResponse().getServiceList())
        .extracting(s -> s.getName())
        .contains("tenbin.index.v1.IndexService");
  }

  @Test
  void healthReportsServing() {
    HealthCheckResponse health =
        HealthGrpc.newBlockingStub(channel)
            .check(
                HealthCheckRequest.newBuilder().setService("tenbin.index.v1.IndexService").build());
    assertThat(health.getStatus()).isEqualTo(HealthCheckResponse.ServingStatus.SERVING);
  }
}
