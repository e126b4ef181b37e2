package dev.tenbin.index.grpc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenbin.client.index.IndexClient;
import dev.tenbin.client.index.SearchStream;
import dev.tenbin.index.server.IndexServer;
import dev.tenbin.proto.common.v1.ScoredDocument;
import dev.tenbin.proto.index.v1.CandidateList;
import dev.tenbin.proto.index.v1.CollectionSpec;
import dev.tenbin.proto.index.v1.CreateCollectionRequest;
import dev.tenbin.proto.index.v1.Document;
import dev.tenbin.proto.index.v1.Family;
import dev.tenbin.proto.index.v1.IndexServiceGrpc;
import dev.tenbin.proto.index.v1.IngestRequest;
import dev.tenbin.proto.index.v1.Query;
import dev.tenbin.proto.index.v1.RescoreRequest;
import dev.tenbin.proto.index.v1.RescoreResponse;
import dev.tenbin.proto.index.v1.SearchRequest;
import dev.tenbin.proto.index.v1.SearchResponse;
import dev.tenbin.rpc.testing.UndecodableRequests;
import io.grpc.ManagedChannel;
import io.grpc.ServiceDescriptor;
import io.grpc.Status;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
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
