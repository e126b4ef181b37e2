package dev.tenbin.index.grpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tenbin.client.index.IndexClient;
import dev.tenbin.client.index.SearchStream;
import dev.tenbin.index.server.IndexServer;
import dev.tenbin.proto.common.v1.Ranking;
import dev.tenbin.proto.common.v1.ScoredDocument;
import dev.tenbin.proto.index.v1.CandidateList;
import dev.tenbin.proto.index.v1.CollectionSpec;
import dev.tenbin.proto.index.v1.CreateCollectionRequest;
import dev.tenbin.proto.index.v1.Document;
import dev.tenbin.proto.index.v1.Family;
import dev.tenbin.proto.index.v1.FuseRequest;
import dev.tenbin.proto.index.v1.FusionMethod;
import dev.tenbin.proto.index.v1.IndexServiceGrpc;
import dev.tenbin.proto.index.v1.IngestRequest;
import dev.tenbin.proto.index.v1.Query;
import dev.tenbin.proto.index.v1.RankingSet;
import dev.tenbin.proto.index.v1.RescoreRequest;
import dev.tenbin.proto.index.v1.RescoreResponse;
import dev.tenbin.proto.index.v1.SearchRequest;
import dev.tenbin.proto.index.v1.SearchResponse;
import dev.tenbin.rpc.StatusMapper;
import dev.tenbin.testing.rpc.UndecodableRequests;
import io.grpc.ManagedChannel;
import io.grpc.ServiceDescriptor;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What a hostile or broken client gets from the index service, and what it leaves behind. */
class HostileClientTest {
  @TempDir Path data;
  private SimpleMeterRegistry registry;
  private IndexServer.Embedded server;
  private ManagedChannel channel;

  @BeforeEach
  void start() {
    String name = "index-hostile-" + UUID.randomUUID();
    registry = new SimpleMeterRegistry();
    server = IndexServer.startInProcess(name, data, registry);
    channel = InProcessChannelBuilder.forName(name).build();
  }

  @AfterEach
  void stop() {
    channel.shutdownNow();
    server.close();
  }

  /** A collection of 200 documents over the words w0000..w2999, and a query of its words. */
  private IndexServiceGrpc.IndexServiceBlockingStub collectionOfNumberedWords() throws Exception {
    IndexServiceGrpc.IndexServiceBlockingStub index =
        IndexServiceGrpc.newBlockingStub(channel).withDeadlineAfter(60, TimeUnit.SECONDS);
    index.createCollection(
        CreateCollectionRequest.newBuilder()
            .setSpec(CollectionSpec.newBuilder().setName("c").setLanguage("en"))
            .build());
    Random random = new Random(11);
    IngestRequest.Builder batch = IngestRequest.newBuilder().setCollection("c");
    for (int d = 0; d < 200; d++) {
      StringBuilder text = new StringBuilder();
      for (int w = 0; w < 5 + random.nextInt(60); w++) {
        text.append(String.format("w%04d ", random.nextInt(3_000)));
      }
      batch.addDocuments(Document.newBuilder().setId("d" + d).setText(text.toString()));
    }
    new IngestClient(channel).send(batch.build());
    return index;
  }

  private static String words(int distinct) {
    StringBuilder text = new StringBuilder();
    for (int i = 0; i < distinct; i++) {
      text.append(String.format("w%04d ", (i * 7) % 3_000));
    }
    return text.toString();
  }

  @Test
  void bm25QueriesOverTheClauseLimitAreServedBySearchRescoreAndSearchStreamAlike()
      throws Exception {
    IndexServiceGrpc.IndexServiceBlockingStub index = collectionOfNumberedWords();
    for (int distinct : new int[] {1_025, 2_000}) {
      Query query = Query.newBuilder().setId("q").setText(words(distinct)).build();
      SearchRequest search =
          SearchRequest.newBuilder()
              .setCollection("c")
              .setFamily(Family.FAMILY_BM25)
              .addQueries(query)
              .setTopK(20)
              .build();

      SearchResponse searched = index.search(search);

      List<ScoredDocument> top = searched.getRankings(0).getDocumentsList();
      assertThat(top).hasSize(20);
      RescoreResponse rescored =
          index.rescore(
              RescoreRequest.newBuilder()
                  .setCollection("c")
                  .setFamily(Family.FAMILY_BM25)
                  .addCandidates(
                      CandidateList.newBuilder()
                          .setQuery(query)
                          .addAllDocIds(top.stream().map(ScoredDocument::getDocId).toList()))
                  .build());
      assertThat(rescored.getRankings(0).getDocumentsList()).isEqualTo(top);
      try (SearchStream stream = IndexClient.of(channel).searchStream()) {
        assertThat(stream.search(search).getRankingsList()).isEqualTo(searched.getRankingsList());
      }
    }
  }

  private static void assertRefused(ThrowingCallable call, String field) {
    assertThatThrownBy(call)
        .isInstanceOfSatisfying(
            StatusRuntimeException.class,
            e -> {
              assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
              assertThat(StatusMapper.violatedField(e)).isEqualTo(field);
            });
  }

  private static SearchRequest bm25Search(String text) {
    return SearchRequest.newBuilder()
        .setCollection("c")
        .setFamily(Family.FAMILY_BM25)
        .addQueries(Query.newBuilder().setId("q0").setText("w0001"))
        .addQueries(Query.newBuilder().setId("q1").setText(text))
        .setTopK(10)
        .build();
  }

  private static RescoreRequest bm25Rescore(String text) {
    return RescoreRequest.newBuilder()
        .setCollection("c")
        .setFamily(Family.FAMILY_BM25)
        .addCandidates(
            CandidateList.newBuilder()
                .setQuery(Query.newBuilder().setId("q0").setText(text))
                .addDocIds("d1"))
        .build();
  }

  @Test
  void aBm25QueryTextOverOneMebibyteIsRefusedNamingItsField() throws Exception {
    IndexServiceGrpc.IndexServiceBlockingStub index = collectionOfNumberedWords();
    // One "word" of 10 MB, as a hostile client sent it.
    String huge = "a".repeat(10_000_000);

    assertRefused(() -> index.search(bm25Search(huge)), "queries[1].text");
    assertRefused(() -> index.rescore(bm25Rescore(huge)), "candidates[0].query.text");
    try (SearchStream stream = IndexClient.of(channel).searchStream()) {
      assertRefused(() -> stream.search(bm25Search(huge)), "request.queries[1].text");
    }
    // Just within the limit: served.
    String largest = "w0001 ".repeat((1 << 20) / 6);
    assertThat(index.search(bm25Search(largest)).getRankingsCount()).isEqualTo(2);
  }

  @Test
  void aBm25QueryOfMoreThan16384DistinctTermsIsRefusedNamingItsField() throws Exception {
    IndexServiceGrpc.IndexServiceBlockingStub index = collectionOfNumberedWords();
    StringBuilder text = new StringBuilder();
    for (int i = 0; i <= 16_384; i++) {
      text.append(String.format("x%05d ", i));
    }

    assertRefused(() -> index.search(bm25Search(text.toString())), "queries[1].text");
    assertRefused(() -> index.rescore(bm25Rescore(text.toString())), "candidates[0].query.text");
  }

  private static Ranking ranking(String queryId, String... ids) {
    Ranking.Builder ranking = Ranking.newBuilder().setQueryId(queryId);
    for (int i = 0; i < ids.length; i++) {
      ranking.addDocuments(
          ScoredDocument.newBuilder().setDocId(ids[i]).setScore(10 - i).setRank(i + 1));
    }
    return ranking.build();
  }

  @Test
  void aFuseRankingListingADocumentTwiceIsRefusedNamingTheRepeat() {
    IndexServiceGrpc.IndexServiceBlockingStub index = IndexServiceGrpc.newBlockingStub(channel);
    RankingSet clean = RankingSet.newBuilder().addRankings(ranking("q1", "a", "b")).build();
    FuseRequest.Builder request =
        FuseRequest.newBuilder()
            .setMethod(FusionMethod.FUSION_METHOD_RRF)
            .addSystems(clean)
            .addSystems(
                RankingSet.newBuilder()
                    .addRankings(ranking("q1", "a"))
                    .addRankings(ranking("q2", "a", "b", "c", "d", "e", "f", "g", "d")));

    assertRefused(() -> index.fuse(request.build()), "systems[1].rankings[1].documents[7].doc_id");
    FuseRequest twoRankingsOfOneQuery =
        request
            .setSystems(
                1,
                RankingSet.newBuilder()
                    .addRankings(ranking("q1", "a"))
                    .addRankings(ranking("q1", "b")))
            .build();
    assertRefused(() -> index.fuse(twoRankingsOfOneQuery), "systems[1].rankings[1].query_id");
  }

  @Test
  void undecodableBytesOnEveryRpcAreInvalidArgumentRecordedAsSuchWithNothingLoggedLoudly() {
    ServiceDescriptor service = IndexServiceGrpc.getServiceDescriptor();

    UndecodableRequests.Report report = UndecodableRequests.sendToEveryMethod(channel, service);

    assertThat(report.answers()).hasSize(service.getMethods().size());
    assertThat(report.answers())
        .allSatisfy(
            answer ->
                assertThat(answer.status().getCode())
                    .as(answer.method())
                    .isEqualTo(Status.Code.INVALID_ARGUMENT));
    assertThat(UndecodableRequests.recordedStatusCodes(registry, service))
        .hasSize(service.getMethods().size())
        .containsOnly("INVALID_ARGUMENT");
    assertThat(report.loud()).isEmpty();
    assertThat(report.events()).hasSizeLessThanOrEqualTo(report.answers().size());
  }
}
