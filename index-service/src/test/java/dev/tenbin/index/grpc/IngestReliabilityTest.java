package dev.tenbin.index.grpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tenbin.index.server.IndexServer;
import dev.tenbin.proto.common.v1.DenseVector;
import dev.tenbin.proto.common.v1.MultiVector;
import dev.tenbin.proto.common.v1.Similarity;
import dev.tenbin.proto.common.v1.SparseVector;
import dev.tenbin.proto.index.v1.CollectionDescription;
import dev.tenbin.proto.index.v1.CollectionSpec;
import dev.tenbin.proto.index.v1.CollectionState;
import dev.tenbin.proto.index.v1.CreateCollectionRequest;
import dev.tenbin.proto.index.v1.DenseOptions;
import dev.tenbin.proto.index.v1.DescribeCollectionRequest;
import dev.tenbin.proto.index.v1.Document;
import dev.tenbin.proto.index.v1.Family;
import dev.tenbin.proto.index.v1.IndexServiceGrpc;
import dev.tenbin.proto.index.v1.IngestRequest;
import dev.tenbin.proto.index.v1.IngestResponse;
import dev.tenbin.proto.index.v1.ListCollectionsRequest;
import dev.tenbin.proto.index.v1.Query;
import dev.tenbin.proto.index.v1.SearchRequest;
import dev.tenbin.rpc.StatusMapper;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Ingest over gRPC that never breaks a collection: invalid batches are refused whole, naming the
 * field; committed batches are acknowledged; re-sent batches are idempotent.
 */
class IngestReliabilityTest {
  @TempDir Path dataDir;
  private IndexServer.Embedded server;
  private ManagedChannel channel;
  private IndexServiceGrpc.IndexServiceBlockingStub index;

  @BeforeEach
  void start() {
    startServer();
  }

  private void startServer() {
    String name = "ingest-test-" + UUID.randomUUID();
    server = IndexServer.startInProcess(name, dataDir, new SimpleMeterRegistry());
    channel = InProcessChannelBuilder.forName(name).directExecutor().build();
    index = IndexServiceGrpc.newBlockingStub(channel).withDeadlineAfter(60, TimeUnit.SECONDS);
  }

  @AfterEach
  void stop() {
    channel.shutdownNow();
    server.close();
  }

  private void restart() {
    stop();
    startServer();
  }

  /**
   * A collection storing every representation: dense (2), sparse (vocabulary 8), multi-vector (2).
   */
  private void createFull(String name) {
    index.createCollection(
        CreateCollectionRequest.newBuilder()
            .setSpec(
                CollectionSpec.newBuilder()
                    .setName(name)
                    .setDenseDimension(2)
                    .setSparseVocabularySize(8)
                    .setMultivectorDimension(2))
            .build());
  }

  private static Document.Builder full(String id, String text, float x, float y) {
    return Document.newBuilder()
        .setId(id)
        .setText(text)
        .setDense(DenseVector.newBuilder().addValues(x).addValues(y))
        .setSparse(SparseVector.newBuilder().addIndices(1).addIndices(3).addValues(x).addValues(y))
        .setMultiVector(MultiVector.newBuilder().setTokenCount(1).addValues(x).addValues(y));
  }

  private List<IngestResponse> ingest(IngestRequest... batches) throws Exception {
    return new IngestClient(channel).send(batches);
  }

  private static IngestRequest batch(String collection, Document.Builder... docs) {
    IngestRequest.Builder request = IngestRequest.newBuilder().setCollection(collection);
    for (Document.Builder doc : docs) {
      request.addDocuments(doc);
    }
    return request.build();
  }

  private CollectionDescription describe(String name) {
    return index
        .describeCollection(DescribeCollectionRequest.newBuilder().setName(name).build())
        .getCollection();
  }

  private List<String> search(String collection, Family family, Query.Builder query) {
    SearchRequest.Builder request =
        SearchRequest.newBuilder()
            .setCollection(collection)
            .setFamily(family)
            .setTopK(10)
            .addQueries(query);
    if (family == Family.FAMILY_DENSE) {
      request.setDense(COSINE);
    }
    return index.search(request.build()).getRankings(0).getDocumentsList().stream()
        .map(d -> d.getDocId())
        .toList();
  }

  private static final DenseOptions COSINE =
      DenseOptions.newBuilder().setSimilarity(Similarity.SIMILARITY_COSINE).build();

  private static Query.Builder denseQuery() {
    return Query.newBuilder()
        .setId("q")
        .setDense(DenseVector.newBuilder().addValues(1).addValues(0.5f));
  }

  /** Every family finds exactly {@code ids} (in any order). */
  private void assertEveryFamilyHolds(String collection, String... ids) {
    assertThat(
            search(collection, Family.FAMILY_BM25, Query.newBuilder().setId("q").setText("apple")))
        .containsExactlyInAnyOrder(ids);
    assertThat(search(collection, Family.FAMILY_DENSE, denseQuery()))
        .containsExactlyInAnyOrder(ids);
    assertThat(
            search(
                collection,
                Family.FAMILY_SPARSE,
                Query.newBuilder()
                    .setId("q")
                    .setSparse(SparseVector.newBuilder().addIndices(1).addValues(1))))
        .containsExactlyInAnyOrder(ids);
    assertThat(
            search(
                collection,
                Family.FAMILY_MULTIVECTOR,
                Query.newBuilder()
                    .setId("q")
                    .setMultiVector(
                        MultiVector.newBuilder().setTokenCount(1).addValues(1).addValues(0))))
        .containsExactlyInAnyOrder(ids);
    assertThat(describe(collection).getDocumentCount()).isEqualTo(ids.length);
  }

  private static void assertInvalid(ThrowingCallable call, String field) {
    assertStatus(call, Status.Code.INVALID_ARGUMENT, field);
  }

  private static void assertStatus(ThrowingCallable call, Status.Code code, String field) {
    assertThatThrownBy(call)
        .isInstanceOfSatisfying(
            StatusRuntimeException.class,
            e -> {
              assertThat(e.getStatus().getCode()).as(e.getStatus().toString()).isEqualTo(code);
              assertThat(StatusMapper.violatedField(e)).isEqualTo(field);
              assertThat(e.getStatus().getDescription()).hasSizeLessThan(400);
            });
  }

  @Test
  void aBatchWithA40000CharacterIdIsRefusedWholeAndTheServiceStaysHealthy() throws Exception {
    createFull("c");
    createFull("other");
    ingest(batch("c", full("kept", "apple", 1, 0)));
    String immense = "x".repeat(40_000);

    assertThatThrownBy(
            () ->
                ingest(batch("c", full("valid", "apple pie", 0, 1), full(immense, "apple", 1, 1))))
        .isInstanceOfSatisfying(
            StatusRuntimeException.class,
            e -> {
              assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
              assertThat(StatusMapper.violatedField(e)).isEqualTo("documents[1].id");
              assertThat(e.getStatus().getDescription())
                  .contains("(40000 characters)")
                  .contains("512 UTF-8 bytes")
                  .hasSizeLessThan(300);
            });

    // The valid document of the failed batch is in no store; everything answers.
    assertEveryFamilyHolds("c", "kept");
    assertThat(
            index.listCollections(ListCollectionsRequest.getDefaultInstance()).getCollectionsList())
        .extracting(d -> d.getSpec().getName() + ":" + d.getState())
        .containsExactly("c:COLLECTION_STATE_READY", "other:COLLECTION_STATE_READY");
    ingest(batch("c", full("valid", "apple pie", 0, 1)));
    assertEveryFamilyHolds("c", "kept", "valid");

    restart();
    assertEveryFamilyHolds("c", "kept", "valid");
    assertThat(describe("other").getState()).isEqualTo(CollectionState.COLLECTION_STATE_READY);
  }

  @Test
  void everyCommittedBatchIsAcknowledgedWithItsSequenceCountsAndLastId() throws Exception {
    createFull("c");
    List<IngestResponse> acks =
        ingest(
            batch("c", full("a", "apple", 1, 0), full("b", "apple", 0, 1)),
            IngestRequest.newBuilder().addDocuments(full("c", "apple", 1, 1)).build(),
            IngestRequest.newBuilder().build());

    assertThat(acks).extracting(IngestResponse::getSequence).containsExactly(1L, 2L, 3L);
    assertThat(acks).extracting(IngestResponse::getBatchDocuments).containsExactly(2, 1, 0);
    assertThat(acks).extracting(IngestResponse::getDocumentCount).containsExactly(2L, 3L, 3L);
    assertThat(acks).extracting(IngestResponse::getDocumentsIngested).containsExactly(2L, 3L, 3L);
    assertThat(acks).extracting(IngestResponse::getBatchesCommitted).containsExactly(1, 2, 3);
    assertThat(acks).extracting(IngestResponse::getLastDocumentId).containsExactly("b", "c", "");
  }

  @Test
  void aFailedBatchEndsTheStreamAfterTheAcknowledgementsOfTheBatchesBeforeIt() throws Exception {
    createFull("c");
    IngestClient client = new IngestClient(channel);
    assertInvalid(
        () ->
            client.send(
                batch("c", full("a", "apple", 1, 0)),
                IngestRequest.newBuilder().addDocuments(full("b", "apple", Float.NaN, 0)).build(),
                IngestRequest.newBuilder().addDocuments(full("c", "apple", 0, 1)).build()),
        "documents[0].dense");
    assertThat(client.acks).extracting(IngestResponse::getSequence).containsExactly(1L);
    assertEveryFamilyHolds("c", "a");
  }

  @Test
  void reSendingCommittedBatchesIsAcknowledgedWithoutDuplicates() throws Exception {
    createFull("c");
    IngestRequest first = batch("c", full("a", "apple", 1, 0), full("b", "apple", 0, 1));
    ingest(first);

    List<IngestResponse> again =
        ingest(first, batch("c", full("b", "apple", 0, 1), full("c", "apple", 1, 1)));

    assertThat(again).extracting(IngestResponse::getBatchAlreadyCommitted).containsExactly(2, 1);
    assertThat(again).extracting(IngestResponse::getDocumentCount).containsExactly(2L, 3L);
    assertEveryFamilyHolds("c", "a", "b", "c");
  }

  @Test
  void reSendingAnIdWithOtherContentIsInvalidArgumentNamingTheField() throws Exception {
    createFull("c");
    ingest(batch("c", full("a", "apple", 1, 0)));
    for (Document.Builder changed :
        List.of(
            full("a", "apple tart", 1, 0),
            full("a", "apple", 1, 0).setTitle("title"),
            full("a", "apple", 1, 0.5f),
            full("a", "apple", 1, 0)
                .setSparse(SparseVector.newBuilder().addIndices(2).addValues(1)),
            full("a", "apple", 1, 0)
                .setMultiVector(
                    MultiVector.newBuilder().setTokenCount(1).addValues(1).addValues(-0f)))) {
      assertInvalid(() -> ingest(batch("c", full("z", "apple", 0, 0), changed)), "documents[1].id");
    }
    assertEveryFamilyHolds("c", "a");
  }

  @Test
  void invalidDocumentsAreRefusedNamingTheField() throws Exception {
    createFull("c");
    index.createCollection(
        CreateCollectionRequest.newBuilder()
            .setSpec(CollectionSpec.newBuilder().setName("text"))
            .build());
    record Case(String collection, Document.Builder doc, String field) {}
    List<Case> cases =
        List.of(
            new Case("c", full("", "apple", 1, 0), "documents[1].id"),
            new Case("c", full("tab\there", "apple", 1, 0), "documents[1].id"),
            new Case("c", full("new\nline", "apple", 1, 0), "documents[1].id"),
            new Case("c", full("ü".repeat(257), "apple", 1, 0), "documents[1].id"),
            new Case(
                "c",
                full("b", "apple", 1, 0).setTitle("t".repeat(64 * 1024 + 1)),
                "documents[1].title"),
            new Case("c", full("b", "x".repeat(4 * 1024 * 1024 + 1), 1, 0), "documents[1].text"),
            new Case(
                "c",
                full("b", "apple", 1, 0).setDense(DenseVector.newBuilder().addValues(1)),
                "documents[1].dense"),
            new Case("c", full("b", "apple", Float.POSITIVE_INFINITY, 0), "documents[1].dense"),
            new Case("c", full("b", "apple", 1, 0).clearDense(), "documents[1].dense"),
            new Case(
                "c",
                full("b", "apple", 1, 0)
                    .setSparse(
                        SparseVector.newBuilder()
                            .addIndices(3)
                            .addIndices(1)
                            .addValues(1)
                            .addValues(1)),
                "documents[1].sparse"),
            new Case(
                "c",
                full("b", "apple", 1, 0)
                    .setSparse(SparseVector.newBuilder().addIndices(8).addValues(1)),
                "documents[1].sparse"),
            new Case(
                "c",
                full("b", "apple", 1, 0)
                    .setSparse(
                        SparseVector.newBuilder()
                            .addIndices(1)
                            .addIndices(1)
                            .addValues(1)
                            .addValues(1)),
                "documents[1].sparse"),
            new Case(
                "c",
                full("b", "apple", 1, 0)
                    .setSparse(SparseVector.newBuilder().addIndices(1).addValues(Float.NaN)),
                "documents[1].sparse"),
            new Case(
                "c",
                full("b", "apple", 1, 0)
                    .setSparse(SparseVector.newBuilder().addIndices(1).addIndices(2).addValues(1)),
                "documents[1].sparse"),
            new Case(
                "c",
                full("b", "apple", 1, 0)
                    .setMultiVector(
                        MultiVector.newBuilder().setTokenCount(2).addValues(1).addValues(0)),
                "documents[1].multi_vector"),
            new Case(
                "c",
                full("b", "apple", 1, 0).setMultiVector(MultiVector.newBuilder().setTokenCount(0)),
                "documents[1].multi_vector"),
            new Case(
                "c",
                full("b", "apple", 1, 0)
                    .setMultiVector(
                        MultiVector.newBuilder()
                            .setTokenCount(Integer.MAX_VALUE)
                            .addValues(1)
                            .addValues(0)),
                "documents[1].multi_vector"),
            new Case(
                "c",
                full("b", "apple", 1, 0)
                    .setMultiVector(
                        MultiVector.newBuilder()
                            .setDimension(3)
                            .setTokenCount(1)
                            .addValues(1)
                            .addValues(0)),
                "documents[1].multi_vector.dimension"),
            new Case("c", full("a", "apple", 1, 0), "documents[1].id"),
            new Case(
                "text",
                Document.newBuilder().setId("b").setDense(DenseVector.newBuilder().addValues(1)),
                "documents[1].dense"),
            new Case(
                "text",
                Document.newBuilder()
                    .setId("b")
                    .setSparse(SparseVector.newBuilder().addIndices(1).addValues(1)),
                "documents[1].sparse"));
    for (Case bad : cases) {
      Document.Builder valid =
          bad.collection().equals("c")
              ? full("a", "apple", 1, 0)
              : Document.newBuilder().setId("a").setText("apple");
      assertInvalid(() -> ingest(batch(bad.collection(), valid, bad.doc())), bad.field());
      assertThat(describe(bad.collection()).getDocumentCount()).as(bad.field()).isZero();
    }
  }

  @Test
  void unknownOrMissingEnumsAndOutOfRangeOptionsAreInvalidArgumentNamingTheField()
      throws Exception {
    createFull("c");
    ingest(batch("c", full("a", "apple", 1, 0)));
    SearchRequest dense =
        SearchRequest.newBuilder()
            .setCollection("c")
            .setFamily(Family.FAMILY_DENSE)
            .setTopK(5)
            .setDense(COSINE)
            .addQueries(denseQuery())
            .build();

    assertInvalid(
        () -> index.search(dense.toBuilder().setFamily(Family.FAMILY_UNSPECIFIED).build()),
        "family");
    assertInvalid(() -> index.search(dense.toBuilder().setFamilyValue(99).build()), "family");
    assertInvalid(
        () ->
            index.search(
                dense.toBuilder()
                    .setDense(dense.getDense().toBuilder().setSimilarityValue(7))
                    .build()),
        "dense.similarity");
    assertInvalid(
        () ->
            index.search(
                dense.toBuilder()
                    .setDense(dense.getDense().toBuilder().setQuantizationValue(9))
                    .build()),
        "dense.quantization");
    assertInvalid(
        () ->
            index.search(
                dense.toBuilder()
                    .setDense(dense.getDense().toBuilder().setRescoreDepth(-1))
                    .build()),
        "dense.rescore_depth");
    assertInvalid(
        () ->
            index.search(
                dense.toBuilder()
                    .setDense(dense.getDense().toBuilder().setRescoreDepth(100_001))
                    .build()),
        "dense.rescore_depth");
    assertInvalid(() -> index.search(dense.toBuilder().setTopK(10_001).build()), "top_k");
    assertInvalid(
        () ->
            index.search(
                dense.toBuilder()
                    .setFamily(Family.FAMILY_SPARSE)
                    .setSparse(
                        dev.tenbin.proto.index.v1.SparseOptions.newBuilder().setMaxQueryDims(-1))
                    .build()),
        "sparse.max_query_dims");
    assertInvalid(
        () ->
            index.rescore(
                dev.tenbin.proto.index.v1.RescoreRequest.newBuilder()
                    .setCollection("c")
                    .setFamilyValue(42)
                    .addCandidates(
                        dev.tenbin.proto.index.v1.CandidateList.newBuilder()
                            .setQuery(denseQuery())
                            .addDocIds("a"))
                    .build()),
        "family");
    // UNSPECIFIED quantization is still the documented float scan.
    assertThat(index.search(dense).getRankings(0).getDocumentsList())
        .extracting(d -> d.getDocId())
        .containsExactly("a");
  }

  @Test
  void aHugeCollectionNameIsCutInTheError() {
    String name = "n".repeat(100_000);
    assertStatus(
        () ->
            index.search(
                SearchRequest.newBuilder()
                    .setCollection(name)
                    .setFamily(Family.FAMILY_BM25)
                    .setTopK(1)
                    .addQueries(Query.newBuilder().setId("q").setText("x"))
                    .build()),
        Status.Code.NOT_FOUND,
        "collection");
    assertStatus(
        () ->
            index.describeCollection(DescribeCollectionRequest.newBuilder().setName(name).build()),
        Status.Code.NOT_FOUND,
        "name");
  }

  @Test
  void aCorruptCollectionIsQuarantinedOverGrpcWhileTheOthersServeAndItCanBeDropped()
      throws Exception {
    createFull("broken");
    createFull("healthy");
    ingest(batch("broken", full("a", "apple", 1, 0)));
    ingest(batch("healthy", full("a", "apple", 1, 0)));
    stop();
    java.nio.file.Files.write(
        dataDir.resolve("broken").resolve("sparse").resolve("sparse.bin"),
        new byte[] {0, 0, 0, 99});
    startServer();

    assertThat(
            index.listCollections(ListCollectionsRequest.getDefaultInstance()).getCollectionsList())
        .extracting(d -> d.getSpec().getName() + ":" + d.getState())
        .containsExactly("broken:COLLECTION_STATE_FAILED", "healthy:COLLECTION_STATE_READY");
    CollectionDescription broken = describe("broken");
    assertThat(broken.getError()).contains("sparse vectors").contains("damaged");
    assertThat(broken.getSpec().getDenseDimension()).isEqualTo(2);
    assertStatus(
        () -> search("broken", Family.FAMILY_DENSE, denseQuery()),
        Status.Code.FAILED_PRECONDITION,
        "collection");
    assertStatus(
        () -> ingest(batch("broken", full("b", "apple", 1, 0))),
        Status.Code.FAILED_PRECONDITION,
        "collection");
    assertStatus(
        () ->
            index.rescore(
                dev.tenbin.proto.index.v1.RescoreRequest.newBuilder()
                    .setCollection("broken")
                    .setFamily(Family.FAMILY_BM25)
                    .addCandidates(
                        dev.tenbin.proto.index.v1.CandidateList.newBuilder()
                            .setQuery(Query.newBuilder().setText("apple"))
                            .addDocIds("a"))
                    .build()),
        Status.Code.FAILED_PRECONDITION,
        "collection");
    assertEveryFamilyHolds("healthy", "a");

    assertThat(
            index
                .dropCollection(
                    dev.tenbin.proto.index.v1.DropCollectionRequest.newBuilder()
                        .setName("broken")
                        .build())
                .getDropped())
        .isTrue();
    assertThat(dataDir.resolve("broken")).doesNotExist();
    assertThat(
            index.listCollections(ListCollectionsRequest.getDefaultInstance()).getCollectionsList())
        .extracting(d -> d.getSpec().getName())
        .containsExactly("healthy");
  }
}
