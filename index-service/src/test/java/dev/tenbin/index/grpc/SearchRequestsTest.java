package dev.tenbin.index.grpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tenbin.index.server.IndexServer;
import dev.tenbin.proto.common.v1.DenseVector;
import dev.tenbin.proto.common.v1.MultiVector;
import dev.tenbin.proto.common.v1.Ranking;
import dev.tenbin.proto.common.v1.ScoredDocument;
import dev.tenbin.proto.common.v1.Similarity;
import dev.tenbin.proto.common.v1.SparseVector;
import dev.tenbin.proto.index.v1.CandidateList;
import dev.tenbin.proto.index.v1.CollectionSpec;
import dev.tenbin.proto.index.v1.CreateCollectionRequest;
import dev.tenbin.proto.index.v1.DenseOptions;
import dev.tenbin.proto.index.v1.Document;
import dev.tenbin.proto.index.v1.Family;
import dev.tenbin.proto.index.v1.IndexServiceGrpc;
import dev.tenbin.proto.index.v1.IngestRequest;
import dev.tenbin.proto.index.v1.Query;
import dev.tenbin.proto.index.v1.RescoreRequest;
import dev.tenbin.proto.index.v1.SearchRequest;
import dev.tenbin.proto.index.v1.SparseOptions;
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
 * Search and Rescore requests over gRPC: every required choice, unknown enum value, misplaced
 * option and missing query representation is INVALID_ARGUMENT naming the field, and rescoring a
 * family's own top-k gives that family's scores and order.
 */
class SearchRequestsTest {
  private static final DenseOptions COSINE =
      DenseOptions.newBuilder().setSimilarity(Similarity.SIMILARITY_COSINE).build();

  @TempDir Path dataDir;
  private IndexServer.Embedded server;
  private ManagedChannel channel;
  private IndexServiceGrpc.IndexServiceBlockingStub index;

  @BeforeEach
  void start() throws Exception {
    String name = "search-requests-" + UUID.randomUUID();
    server = IndexServer.startInProcess(name, dataDir, new SimpleMeterRegistry());
    channel = InProcessChannelBuilder.forName(name).directExecutor().build();
    index = IndexServiceGrpc.newBlockingStub(channel).withDeadlineAfter(60, TimeUnit.SECONDS);
    index.createCollection(
        CreateCollectionRequest.newBuilder()
            .setSpec(
                CollectionSpec.newBuilder()
                    .setName("c")
                    .setDenseDimension(2)
                    .setSparseVocabularySize(8)
                    .setMultivectorDimension(2))
            .build());
    new IngestClient(channel)
        .send(
            IngestRequest.newBuilder()
                .setCollection("c")
                .addDocuments(doc("a", "apple pie", 1, 0))
                .addDocuments(doc("b", "apple apple tart", 0.6f, 0.8f))
                .addDocuments(doc("c", "pear", -1, 0.2f))
                .build());
  }

  @AfterEach
  void stop() {
    channel.shutdownNow();
    server.close();
  }

  private static Document doc(String id, String text, float x, float y) {
    return Document.newBuilder()
        .setId(id)
        .setText(text)
        .setDense(DenseVector.newBuilder().addValues(x).addValues(y))
        .setSparse(SparseVector.newBuilder().addIndices(1).addIndices(3).addValues(x).addValues(y))
        .setMultiVector(MultiVector.newBuilder().setTokenCount(1).addValues(x).addValues(y))
        .build();
  }

  private static Query text(String text) {
    return Query.newBuilder().setId("q").setText(text).build();
  }

  private static Query dense() {
    return Query.newBuilder()
        .setId("q")
        .setDense(DenseVector.newBuilder().addValues(1).addValues(0.5f))
        .build();
  }

  private static Query sparse() {
    return Query.newBuilder()
        .setId("q")
        .setSparse(SparseVector.newBuilder().addIndices(1).addIndices(3).addValues(1).addValues(2))
        .build();
  }

  private static Query multiVector() {
    return Query.newBuilder()
        .setId("q")
        .setMultiVector(MultiVector.newBuilder().setTokenCount(1).addValues(0.5f).addValues(1))
        .build();
  }

  private static SearchRequest.Builder search(Family family, Query query) {
    SearchRequest.Builder request =
        SearchRequest.newBuilder()
            .setCollection("c")
            .setFamily(family)
            .setTopK(10)
            .addQueries(query);
    return family == Family.FAMILY_DENSE ? request.setDense(COSINE) : request;
  }

  private static RescoreRequest.Builder rescore(Family family, Query query, String... ids) {
    RescoreRequest.Builder request =
        RescoreRequest.newBuilder()
            .setCollection("c")
            .setFamily(family)
            .addCandidates(CandidateList.newBuilder().setQuery(query).addAllDocIds(List.of(ids)));
    return family == Family.FAMILY_DENSE ? request.setDense(COSINE) : request;
  }

  private static void assertInvalid(ThrowingCallable call, String field) {
    assertThatThrownBy(call)
        .isInstanceOfSatisfying(
            StatusRuntimeException.class,
            e -> {
              assertThat(e.getStatus().getCode())
                  .as(e.getStatus().toString())
                  .isEqualTo(Status.Code.INVALID_ARGUMENT);
              assertThat(StatusMapper.violatedField(e)).isEqualTo(field);
            });
  }

  @Test
  void anUnknownFamilyIsInvalidArgumentNamingFamilyInSearchAndRescore() {
    for (Query query : List.of(text("apple"), dense(), sparse(), multiVector())) {
      assertInvalid(
          () -> index.search(search(Family.FAMILY_BM25, query).setFamilyValue(99).build()),
          "family");
      assertInvalid(
          () -> index.rescore(rescore(Family.FAMILY_BM25, query, "a").setFamilyValue(99).build()),
          "family");
    }
  }

  @Test
  void anUnspecifiedFamilyIsInvalidArgumentNamingFamilyInSearchAndRescore() {
    assertInvalid(() -> index.search(search(Family.FAMILY_UNSPECIFIED, dense()).build()), "family");
    assertInvalid(
        () -> index.rescore(rescore(Family.FAMILY_UNSPECIFIED, dense(), "a").build()), "family");
  }

  @Test
  void aDenseRequestWithoutSimilarityIsInvalidArgumentInsteadOfCosine() {
    DenseOptions unspecified =
        DenseOptions.newBuilder().setSimilarity(Similarity.SIMILARITY_UNSPECIFIED).build();
    assertInvalid(
        () -> index.search(search(Family.FAMILY_DENSE, dense()).setDense(unspecified).build()),
        "dense.similarity");
    assertInvalid(
        () ->
            index.rescore(rescore(Family.FAMILY_DENSE, dense(), "a").setDense(unspecified).build()),
        "dense.similarity");
    assertInvalid(
        () ->
            index.search(
                search(Family.FAMILY_DENSE, dense())
                    .setDense(COSINE.toBuilder().setSimilarityValue(7))
                    .build()),
        "dense.similarity");
    assertInvalid(
        () -> index.search(search(Family.FAMILY_DENSE, dense()).clearDense().build()), "dense");
    assertInvalid(
        () -> index.rescore(rescore(Family.FAMILY_DENSE, dense(), "a").clearDense().build()),
        "dense");
  }

  @Test
  void givenInt8RangesAreCheckedAndNamed() {
    var ranges =
        dev.tenbin.proto.index.v1.Int8Calibration.newBuilder()
            .addMinimums(-1)
            .addMinimums(-1)
            .addMaximums(1)
            .addMaximums(1);
    DenseOptions floatScan = COSINE.toBuilder().setInt8Calibration(ranges).build();
    assertInvalid(
        () -> index.search(search(Family.FAMILY_DENSE, dense()).setDense(floatScan).build()),
        "dense.int8_calibration");
    DenseOptions int8 =
        COSINE.toBuilder()
            .setQuantization(dev.tenbin.proto.index.v1.Quantization.QUANTIZATION_INT8)
            .build();
    for (var bad :
        List.of(
            ranges.clone().addMinimums(0), // one value too many
            ranges.clone().setMinimums(0, 2), // minimum above the maximum
            ranges.clone().setMaximums(1, Float.NaN),
            ranges.clone().addMinimums(0).addMaximums(1))) { // three dimensions for two
      assertInvalid(
          () ->
              index.search(
                  search(Family.FAMILY_DENSE, dense())
                      .setDense(int8.toBuilder().setInt8Calibration(bad))
                      .build()),
          "dense.int8_calibration");
    }
    assertThat(
            index
                .search(
                    search(Family.FAMILY_DENSE, dense())
                        .setDense(int8.toBuilder().setInt8Calibration(ranges))
                        .build())
                .getStats()
                .getInt8Calibration())
        .isEqualTo(ranges.build());
  }

  @Test
  void getInt8CalibrationAnswersTheVariantsOwnRangesAndTheirDocuments() {
    var dot =
        index.getInt8Calibration(
            dev.tenbin.proto.index.v1.GetInt8CalibrationRequest.newBuilder()
                .setCollection("c")
                .setDense(
                    DenseOptions.newBuilder().setSimilarity(Similarity.SIMILARITY_DOT).build())
                .build());
    assertThat(dot.getDocuments()).isEqualTo(3);
    // The three documents' vectors (1, 0), (0.6, 0.8), (-1, 0.2), as stored.
    assertThat(dot.getCalibration().getMinimumsList()).containsExactly(-1f, 0f);
    assertThat(dot.getCalibration().getMaximumsList()).containsExactly(1f, 0.8f);
    var truncated =
        index.getInt8Calibration(
            dev.tenbin.proto.index.v1.GetInt8CalibrationRequest.newBuilder()
                .setCollection("c")
                .setDense(COSINE.toBuilder().setTruncateDimensions(1))
                .build());
    // Truncated to one dimension and normalised: -1 and 1.
    assertThat(truncated.getCalibration().getMinimumsList()).containsExactly(-1f);
    assertThat(truncated.getCalibration().getMaximumsList()).containsExactly(1f);
    assertInvalid(
        () ->
            index.getInt8Calibration(
                dev.tenbin.proto.index.v1.GetInt8CalibrationRequest.newBuilder()
                    .setCollection("c")
                    .build()),
        "dense");
  }

  @Test
  void optionsOfAnotherFamilyAreInvalidArgumentNamingThem() {
    assertInvalid(
        () -> index.search(search(Family.FAMILY_BM25, text("apple")).setDense(COSINE).build()),
        "dense");
    assertInvalid(
        () ->
            index.search(
                search(Family.FAMILY_DENSE, dense())
                    .setSparse(SparseOptions.newBuilder().setMaxQueryDims(1))
                    .build()),
        "sparse");
    assertInvalid(
        () ->
            index.rescore(
                rescore(Family.FAMILY_MULTIVECTOR, multiVector(), "a")
                    .setSparse(SparseOptions.getDefaultInstance())
                    .build()),
        "sparse");
  }

  @Test
  void aQueryWithoutTheFamilysRepresentationIsInvalidArgumentNamingIt() {
    assertInvalid(
        () -> index.search(search(Family.FAMILY_DENSE, dense()).addQueries(sparse()).build()),
        "queries[1].dense");
    assertInvalid(
        () -> index.search(search(Family.FAMILY_BM25, dense()).build()), "queries[0].text");
    assertInvalid(
        () -> index.search(search(Family.FAMILY_SPARSE, text("apple")).build()),
        "queries[0].sparse");
    assertInvalid(
        () -> index.search(search(Family.FAMILY_MULTIVECTOR, sparse()).build()),
        "queries[0].multi_vector");
    assertInvalid(
        () -> index.rescore(rescore(Family.FAMILY_BM25, dense(), "a").build()),
        "candidates[0].query.text");
    assertInvalid(
        () -> index.rescore(rescore(Family.FAMILY_SPARSE, dense(), "a").build()),
        "candidates[0].query.sparse");
  }

  @Test
  void anUnknownCandidateIsInvalidArgumentNamingItsPosition() {
    assertInvalid(
        () -> index.rescore(rescore(Family.FAMILY_BM25, text("apple"), "a", "zz").build()),
        "candidates[0].doc_ids[1]");
  }

  @Test
  void rescoringAFamilysTopKGivesItsScoresAndOrder() {
    for (var entry :
        List.of(
            new Object[] {Family.FAMILY_BM25, text("apple")},
            new Object[] {Family.FAMILY_DENSE, dense()},
            new Object[] {Family.FAMILY_SPARSE, sparse()},
            new Object[] {Family.FAMILY_MULTIVECTOR, multiVector()})) {
      Family family = (Family) entry[0];
      Query query = (Query) entry[1];
      Ranking searched = index.search(search(family, query).build()).getRankings(0);
      assertThat(searched.getDocumentsCount()).as(family.name()).isGreaterThan(1);
      List<String> reversed =
          searched.getDocumentsList().stream().map(ScoredDocument::getDocId).toList().reversed();
      Ranking rescored =
          index
              .rescore(rescore(family, query, reversed.toArray(String[]::new)).build())
              .getRankings(0);
      assertThat(rescored).as(family.name()).isEqualTo(searched);
    }
  }
}
