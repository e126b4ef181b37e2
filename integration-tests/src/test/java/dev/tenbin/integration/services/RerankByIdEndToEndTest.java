package dev.tenbin.integration.services;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenbin.eval.services.Services;
import dev.tenbin.proto.common.v1.ScoredDocument;
import dev.tenbin.proto.index.v1.CollectionSpec;
import dev.tenbin.proto.index.v1.CreateCollectionRequest;
import dev.tenbin.proto.index.v1.Document;
import dev.tenbin.proto.index.v1.IndexServiceGrpc;
import dev.tenbin.proto.index.v1.IngestRequest;
import dev.tenbin.proto.index.v1.IngestResponse;
import dev.tenbin.proto.rerank.v1.Candidate;
import dev.tenbin.proto.rerank.v1.IndexDocuments;
import dev.tenbin.proto.rerank.v1.RerankRequest;
import dev.tenbin.proto.rerank.v1.RerankServiceGrpc;
import dev.tenbin.scoring.beir.CorpusDocument;
import dev.tenbin.testing.models.TinyModels;
import io.grpc.stub.StreamObserver;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The embedded services wired together: the embedded rerank service resolves candidates given by id
 * through the embedded index service, and scores them exactly as the orchestrator's inline
 * candidates ({@link CorpusDocument#titleAndText()}).
 */
class RerankByIdEndToEndTest {
  @TempDir Path tmp;

  private static final List<CorpusDocument> CORPUS =
      List.of(
          new CorpusDocument("d0", "", "banana date"),
          new CorpusDocument("d1", "apple", "cherry"),
          new CorpusDocument("d2", "fig", "grape apple apple"),
          new CorpusDocument("d3", "elder", ""));

  @Test
  void theEmbeddedRerankServiceScoresIndexDocumentsByIdAsTheirInlineText() throws Exception {
    Path models = tmp.resolve("models");
    TinyModels.crossEncoder(models, "tiny-ce");

    try (Services services = Services.connect(null, null, models, tmp.resolve("cache"))) {
      IndexServiceGrpc.newBlockingStub(services.indexChannel())
          .createCollection(
              CreateCollectionRequest.newBuilder()
                  .setSpec(CollectionSpec.newBuilder().setName("corpus").setLanguage("en"))
                  .build());
      IngestRequest.Builder batch = IngestRequest.newBuilder().setCollection("corpus");
      RerankRequest.Builder inline =
          RerankRequest.newBuilder().setModelId("tiny-ce").setQuery("apple");
      IndexDocuments.Builder byId = IndexDocuments.newBuilder().setCollection("corpus");
      for (CorpusDocument doc : CORPUS) {
        batch.addDocuments(
            Document.newBuilder().setId(doc.id()).setTitle(doc.title()).setText(doc.text()));
        inline.addCandidates(Candidate.newBuilder().setDocId(doc.id()).setText(doc.titleAndText()));
        byId.addIds(doc.id());
      }
      CompletableFuture<IngestResponse> acknowledged = new CompletableFuture<>();
      StreamObserver<IngestRequest> ingest =
          IndexServiceGrpc.newStub(services.indexChannel())
              .ingest(
                  new StreamObserver<>() {
                    @Override
                    public void onNext(IngestResponse ack) {
                      acknowledged.complete(ack);
                    }

                    @Override
                    public void onError(Throwable t) {
                      acknowledged.completeExceptionally(t);
                    }

                    @Override
                    public void onCompleted() {}
                  });
      ingest.onNext(batch.build());
      ingest.onCompleted();
      assertThat(acknowledged.get(60, TimeUnit.SECONDS).getDocumentCount()).isEqualTo(4);

      var rerank =
          RerankServiceGrpc.newBlockingStub(services.rerankChannel())
              .withDeadlineAfter(60, TimeUnit.SECONDS);
      List<ScoredDocument> byText = rerank.rerank(inline.build()).getDocumentsList();
      List<ScoredDocument> byIds =
          rerank
              .rerank(
                  RerankRequest.newBuilder()
                      .setModelId("tiny-ce")
                      .setQuery("apple")
                      .setIndexDocuments(byId)
                      .build())
              .getDocumentsList();

      assertThat(byIds).isEqualTo(byText);
      assertThat(byIds).extracting(ScoredDocument::getScore).doesNotHaveDuplicates();
    }
  }
}
