package dev.tenbin.index.grpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tenbin.index.server.IndexServer;
import dev.tenbin.proto.index.v1.CollectionSpec;
import dev.tenbin.proto.index.v1.CreateCollectionRequest;
import dev.tenbin.proto.index.v1.DescribeCollectionRequest;
import dev.tenbin.proto.index.v1.Document;
import dev.tenbin.proto.index.v1.Family;
import dev.tenbin.proto.index.v1.GetDocumentsRequest;
import dev.tenbin.proto.index.v1.IndexServiceGrpc;
import dev.tenbin.proto.index.v1.IngestRequest;
import dev.tenbin.proto.index.v1.Query;
import dev.tenbin.proto.index.v1.SearchRequest;
import dev.tenbin.proto.index.v1.StoredDocument;
import dev.tenbin.rpc.StatusMapper;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.store.FSDirectory;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** GetDocuments: the title and text a collection stores, by id, through the gRPC service. */
class GetDocumentsTest {
  @TempDir Path dataDir;
  private IndexServer.Embedded server;
  private ManagedChannel channel;
  private IndexServiceGrpc.IndexServiceBlockingStub index;

  @BeforeEach
  void start() {
    String name = "get-documents-" + UUID.randomUUID();
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
    start();
  }

  private void createWith(String collection, Document... documents) throws Exception {
    index.createCollection(
        CreateCollectionRequest.newBuilder()
            .setSpec(CollectionSpec.newBuilder().setName(collection).setLanguage("en"))
            .build());
    new IngestClient(channel)
        .send(
            IngestRequest.newBuilder()
                .setCollection(collection)
                .addAllDocuments(List.of(documents))
                .build());
  }

  private static Document doc(String id, String title, String text) {
    return Document.newBuilder().setId(id).setTitle(title).setText(text).build();
  }

  private List<StoredDocument> get(String collection, String... ids) {
    return index
        .getDocuments(
            GetDocumentsRequest.newBuilder()
                .setCollection(collection)
                .addAllIds(List.of(ids))
                .build())
        .getDocumentsList();
  }

  private static void assertRefused(ThrowingCallable call, Status.Code code, String field) {
    assertThatThrownBy(call)
        .isInstanceOfSatisfying(
            StatusRuntimeException.class,
            e -> {
              assertThat(e.getStatus().getCode()).isEqualTo(code);
              assertThat(StatusMapper.violatedField(e)).isEqualTo(field);
            });
  }

  @Test
  void documentsComeBackWithTheirTitleAndTextInRequestOrder() throws Exception {
    createWith(
        "docs",
        doc("d1", "First", "alpha text"),
        doc("d2", "", "beta text, no title"),
        doc("d3", "Third", "gamma ünïcödé 漢字"));

    assertThat(get("docs", "d3", "d1", "d3", "d2"))
        .containsExactly(
            StoredDocument.newBuilder()
                .setId("d3")
                .setTitle("Third")
                .setText("gamma ünïcödé 漢字")
                .build(),
            StoredDocument.newBuilder().setId("d1").setTitle("First").setText("alpha text").build(),
            StoredDocument.newBuilder()
                .setId("d3")
                .setTitle("Third")
                .setText("gamma ünïcödé 漢字")
                .build(),
            StoredDocument.newBuilder()
                .setId("d2")
                .setTitle("")
                .setText("beta text, no title")
                .build());
    assertThat(
            index
                .describeCollection(DescribeCollectionRequest.newBuilder().setName("docs").build())
                .getCollection()
                .getStoresText())
        .isTrue();
  }

  @Test
  void storedTextIsDurableAcrossARestart() throws Exception {
    createWith("docs", doc("d1", "T", "kept text"));

    restart();

    assertThat(get("docs", "d1"))
        .containsExactly(
            StoredDocument.newBuilder().setId("d1").setTitle("T").setText("kept text").build());
  }

  @Test
  void aRefusedBatchLeavesNoTextBehind() throws Exception {
    createWith("docs", doc("d1", "", "committed"));
    assertThatThrownBy(
            () ->
                new IngestClient(channel)
                    .send(
                        IngestRequest.newBuilder()
                            .setCollection("docs")
                            .addDocuments(doc("d2", "", "fine"))
                            .addDocuments(doc("bad\u0001id", "", "refused"))
                            .build()))
        .isInstanceOf(StatusRuntimeException.class);

    assertRefused(() -> get("docs", "d1", "d2"), Status.Code.NOT_FOUND, "ids[1]");
    assertThat(get("docs", "d1")).extracting(StoredDocument::getText).containsExactly("committed");
  }

  @Test
  void unknownCollectionAndUnknownIdsAreNotFoundNamingTheField() throws Exception {
    createWith("docs", doc("d1", "", "text"));

    assertRefused(() -> get("nope", "d1"), Status.Code.NOT_FOUND, "collection");
    assertRefused(() -> get("docs", "d1", "d1", "missing"), Status.Code.NOT_FOUND, "ids[2]");
  }

  @Test
  void idCountOutsideTheLimitsIsInvalidArgumentNamingIds() throws Exception {
    createWith("docs", doc("d1", "", "text"));

    assertRefused(() -> get("docs"), Status.Code.INVALID_ARGUMENT, "ids");
    String[] tooMany =
        Collections.nCopies(IndexGrpcService.MAX_DOCUMENT_IDS + 1, "d1").toArray(String[]::new);
    assertRefused(() -> get("docs", tooMany), Status.Code.INVALID_ARGUMENT, "ids");
  }

  @Test
  void aResponseOverTheSizeLimitIsInvalidArgumentNamingIds() throws Exception {
    String fourMegabytes = "word ".repeat(800_000);
    createWith("docs", doc("big", "", fourMegabytes));
    int copies = (int) (IndexGrpcService.MAX_DOCUMENTS_RESPONSE_BYTES / fourMegabytes.length()) + 1;

    assertThat(get("docs", "big", "big")).hasSize(2);
    assertRefused(
        () -> get("docs", Collections.nCopies(copies, "big").toArray(String[]::new)),
        Status.Code.INVALID_ARGUMENT,
        "ids");
  }

  @Test
  void aCollectionCreatedBeforeTextWasStoredIsFailedPreconditionButStillSearches()
      throws Exception {
    createWith("old", doc("d1", "", "searchable words"));
    server.close();
    // What an older index service left: a commit without the stored-text marker.
    try (var writer =
        new IndexWriter(
            FSDirectory.open(dataDir.resolve("old").resolve("bm25")), new IndexWriterConfig())) {
      writer.setLiveCommitData(Map.of("tenbin.documents", "1").entrySet());
      writer.commit();
    }
    channel.shutdownNow();
    start();

    assertRefused(() -> get("old", "d1"), Status.Code.FAILED_PRECONDITION, "collection");
    assertThatThrownBy(() -> get("old", "d1"))
        .hasMessageContaining("old")
        .hasMessageContaining("re-ingest");
    assertThat(
            index
                .describeCollection(DescribeCollectionRequest.newBuilder().setName("old").build())
                .getCollection()
                .getStoresText())
        .isFalse();
    assertThat(
            index
                .search(
                    SearchRequest.newBuilder()
                        .setCollection("old")
                        .setFamily(Family.FAMILY_BM25)
                        .setTopK(5)
                        .addQueries(Query.newBuilder().setId("q").setText("searchable"))
                        .build())
                .getRankings(0)
                .getDocumentsList())
        .extracting(d -> d.getDocId())
        .containsExactly("d1");
  }
}
