package dev.tenbin.index.grpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tenbin.index.server.IndexServer;
import dev.tenbin.proto.common.v1.DenseVector;
import dev.tenbin.proto.common.v1.MultiVector;
import dev.tenbin.proto.common.v1.SparseVector;
import dev.tenbin.proto.index.v1.CollectionSpec;
import dev.tenbin.proto.index.v1.CreateCollectionRequest;
import dev.tenbin.proto.index.v1.Document;
import dev.tenbin.proto.index.v1.ExportDocumentsRequest;
import dev.tenbin.proto.index.v1.ExportDocumentsResponse;
import dev.tenbin.proto.index.v1.GetCollectionDigestRequest;
import dev.tenbin.proto.index.v1.GetCollectionDigestResponse;
import dev.tenbin.proto.index.v1.IndexServiceGrpc;
import dev.tenbin.proto.index.v1.IngestRequest;
import dev.tenbin.rpc.StatusMapper;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * GetCollectionDigest and ExportDocuments through the gRPC service: a collection exported and
 * ingested again has its source's digest; errors name their field.
 */
class CollectionDigestServiceTest {
  @TempDir Path dataDir;
  private IndexServer.Embedded server;
  private ManagedChannel channel;
  private IndexServiceGrpc.IndexServiceBlockingStub index;

  @BeforeEach
  void start() {
    String name = "collection-digest-" + UUID.randomUUID();
    server = IndexServer.startInProcess(name, dataDir, new SimpleMeterRegistry());
    channel = InProcessChannelBuilder.forName(name).directExecutor().build();
    index = IndexServiceGrpc.newBlockingStub(channel).withDeadlineAfter(60, TimeUnit.SECONDS);
  }

  @AfterEach
  void stop() {
    channel.shutdownNow();
    server.close();
  }

  private static final CollectionSpec.Builder EVERY_FAMILY =
      CollectionSpec.newBuilder()
          .setLanguage("en")
          .setDenseDimension(3)
          .setSparseVocabularySize(30)
          .setMultivectorDimension(2);

  private static List<Document> documents(int count) {
    Random random = new Random(11);
    List<Document> documents = new ArrayList<>();
    for (int d = 0; d < count; d++) {
      int first = random.nextInt(20);
      documents.add(
          Document.newBuilder()
              .setId("d" + d)
              .setTitle(d % 4 == 0 ? "" : "title " + d)
              .setText("some text " + random.nextInt(500) + " ünïcödé")
              .setDense(
                  DenseVector.newBuilder()
                      .addValues((float) random.nextGaussian())
                      .addValues((float) random.nextGaussian())
                      .addValues((float) random.nextGaussian()))
              .setSparse(
                  SparseVector.newBuilder()
                      .addIndices(first)
                      .addIndices(first + 1 + random.nextInt(5))
                      .addValues(random.nextFloat())
                      .addValues(random.nextFloat()))
              .setMultiVector(
                  MultiVector.newBuilder()
                      .setDimension(2)
                      .setTokenCount(2)
                      .addValues(random.nextFloat())
                      .addValues(random.nextFloat())
                      .addValues(random.nextFloat())
                      .addValues(random.nextFloat()))
              .build());
    }
    return documents;
  }

  /** Creates {@code name} with every family and ingests {@code documents} in batches. */
  private void create(String name, List<Document> documents, int batch) throws Exception {
    index.createCollection(
        CreateCollectionRequest.newBuilder().setSpec(EVERY_FAMILY.clone().setName(name)).build());
    List<IngestRequest> batches = new ArrayList<>();
    for (int from = 0; from < documents.size(); from += batch) {
      batches.add(
          IngestRequest.newBuilder()
              .setCollection(name)
              .addAllDocuments(documents.subList(from, Math.min(documents.size(), from + batch)))
              .build());
    }
    new IngestClient(channel).send(batches.toArray(IngestRequest[]::new));
  }

  private GetCollectionDigestResponse digest(String collection) {
    return index.getCollectionDigest(
        GetCollectionDigestRequest.newBuilder().setCollection(collection).build());
  }

  private List<ExportDocumentsResponse> export(String collection, int pageSize) {
    List<ExportDocumentsResponse> pages = new ArrayList<>();
    index
        .exportDocuments(
            ExportDocumentsRequest.newBuilder()
                .setCollection(collection)
                .setPageSize(pageSize)
                .build())
        .forEachRemaining(pages::add);
    return pages;
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
  void replicasIngestedInOtherBatchesAndOrdersHaveOneDigestAndOneChangedDocumentChangesIt()
      throws Exception {
    List<Document> documents = documents(90);
    List<Document> shuffled = new ArrayList<>(documents);
    Collections.shuffle(shuffled, new Random(4));
    create("first", documents, 90);
    create("second", shuffled, 8);
    List<Document> changed = new ArrayList<>(documents);
    changed.set(40, changed.get(40).toBuilder().setText("another text").build());
    create("changed", changed, 30);

    GetCollectionDigestResponse first = digest("first");
    assertThat(first.getDocumentCount()).isEqualTo(90);
    assertThat(first.getDigest()).matches("[0-9a-f]{64}");
    assertThat(digest("second")).isEqualTo(first);
    assertThat(digest("changed").getDigest()).isNotEqualTo(first.getDigest());
  }

  @Test
  void exportedPagesIngestedIntoANewCollectionGiveTheSourceItsDigest() throws Exception {
    List<Document> documents = documents(50);
    List<Document> shuffled = new ArrayList<>(documents);
    Collections.shuffle(shuffled, new Random(9));
    create("source", shuffled, 6);

    List<ExportDocumentsResponse> pages = export("source", 7);

    // 50 documents in pages of at most 7, in id order, each exactly as it was ingested.
    assertThat(pages).hasSize(8);
    List<Document> exported = new ArrayList<>();
    for (ExportDocumentsResponse page : pages) {
      assertThat(page.getDocumentCount()).isEqualTo(50);
      assertThat(page.getDocumentsCount()).isBetween(1, 7);
      exported.addAll(page.getDocumentsList());
    }
    List<Document> byId = new ArrayList<>(documents);
    byId.sort(Comparator.comparing(Document::getId));
    assertThat(exported).isEqualTo(byId);

    index.createCollection(
        CreateCollectionRequest.newBuilder().setSpec(EVERY_FAMILY.clone().setName("copy")).build());
    IngestRequest[] batches =
        pages.stream()
            .map(
                page ->
                    IngestRequest.newBuilder()
                        .setCollection("copy")
                        .addAllDocuments(page.getDocumentsList())
                        .build())
            .toArray(IngestRequest[]::new);
    new IngestClient(channel).send(batches);
    assertThat(digest("copy")).isEqualTo(digest("source"));
  }

  @Test
  void anEmptyCollectionExportsOnePageWithoutDocuments() {
    index.createCollection(
        CreateCollectionRequest.newBuilder()
            .setSpec(CollectionSpec.newBuilder().setName("empty").setLanguage("en"))
            .build());

    assertThat(export("empty", 0))
        .containsExactly(ExportDocumentsResponse.newBuilder().setDocumentCount(0).build());
    assertThat(digest("empty").getDocumentCount()).isZero();
  }

  @Test
  void anUnknownCollectionIsNotFoundAndAMissingNameOrABadPageSizeIsInvalidArgument()
      throws Exception {
    create("known", documents(3), 3);

    assertRefused(() -> digest("unknown"), Status.Code.NOT_FOUND, "collection");
    assertRefused(() -> export("unknown", 0), Status.Code.NOT_FOUND, "collection");
    assertRefused(() -> digest(""), Status.Code.INVALID_ARGUMENT, "collection");
    assertRefused(() -> export("", 0), Status.Code.INVALID_ARGUMENT, "collection");
    assertRefused(() -> export("known", -1), Status.Code.INVALID_ARGUMENT, "page_size");
    assertRefused(
        () -> export("known", DocumentPages.MAX_PAGE_SIZE + 1),
        Status.Code.INVALID_ARGUMENT,
        "page_size");
    assertThat(export("known", DocumentPages.MAX_PAGE_SIZE)).hasSize(1);
  }
}
