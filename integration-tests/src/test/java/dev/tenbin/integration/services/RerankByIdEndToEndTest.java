package dev.tenbin.integration.services;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenbin.client.rerank.RerankClient;
import dev.tenbin.eval.retrieval.CollectionIngester;
import dev.tenbin.eval.retrieval.IndexSession;
import dev.tenbin.eval.services.Services;
import dev.tenbin.proto.common.v1.ScoredDocument;
import dev.tenbin.proto.index.v1.CollectionSpec;
import dev.tenbin.proto.index.v1.CreateCollectionRequest;
import dev.tenbin.proto.index.v1.Document;
import dev.tenbin.proto.rerank.v1.Candidate;
import dev.tenbin.proto.rerank.v1.IndexDocuments;
import dev.tenbin.proto.rerank.v1.RerankRequest;
import dev.tenbin.scoring.beir.CorpusDocument;
import dev.tenbin.testing.models.TinyModels;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
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
      services
          .index()
          .withDeadline(Duration.ofSeconds(60))
          .createCollection(
              CreateCollectionRequest.newBuilder()
                  .setSpec(CollectionSpec.newBuilder().setName("corpus").setLanguage("en"))
                  .build());
      List<Document> documents = new ArrayList<>();
      RerankRequest.Builder inline =
          RerankRequest.newBuilder().setModelId("tiny-ce").setQuery("apple");
      IndexDocuments.Builder byId = IndexDocuments.newBuilder().setCollection("corpus");
      for (CorpusDocument doc : CORPUS) {
        documents.add(
            Document.newBuilder()
                .setId(doc.id())
                .setTitle(doc.title())
                .setText(doc.text())
                .build());
        inline.addCandidates(Candidate.newBuilder().setDocId(doc.id()).setText(doc.titleAndText()));
        byId.addIds(doc.id());
      }
      // One batch, as the whole corpus.
      assertThat(
              new CollectionIngester(services.index(), CORPUS.size(), 60)
                  .ingest("corpus", documents))
          .isEqualTo(4);

      RerankClient rerank = services.reranker().withDeadline(Duration.ofSeconds(60));
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

  @Test
  void candidatesByIdOfAShardedReplicatedCollectionScoreAsThoseOfOneCollection() throws Exception {
    Path models = tmp.resolve("models");
    TinyModels.crossEncoder(models, "tiny-ce");
    String[] words = {"apple", "banana", "cherry", "date", "elder", "fig", "grape"};
    List<Document> documents = new ArrayList<>();
    for (int d = 0; d < 60; d++) {
      documents.add(
          Document.newBuilder()
              .setId("doc-" + d)
              .setTitle(d % 4 == 0 ? "" : words[d % words.length])
              .setText(words[(d / 3) % words.length] + " " + words[(d * 5) % words.length])
              .build());
    }
    try (Services services = Services.connect(null, null, models, tmp.resolve("cache"));
        IndexSession one = new IndexSession(services.index(), IndexSession.Shape.bm25("en", null));
        IndexSession threeShards =
            new IndexSession(
                services.index(), IndexSession.Shape.bm25("en", null).withLayout(3, 1));
        IndexSession twoOfTwo =
            new IndexSession(
                services.index(), IndexSession.Shape.bm25("en", null).withLayout(2, 2))) {
      RerankClient rerank = services.reranker().withDeadline(Duration.ofSeconds(60));
      List<List<ScoredDocument>> answers = new ArrayList<>();
      for (IndexSession session : List.of(one, threeShards, twoOfTwo)) {
        assertThat(session.ingest(documents)).isEqualTo(60);
        IndexDocuments.Builder byId =
            IndexDocuments.newBuilder()
                .setCollection(session.name())
                .setShards(session.shards())
                .setReplicas(session.replicas());
        // Every third document, in reverse: candidates of every shard.
        for (int d = documents.size() - 1; d >= 0; d -= 3) {
          byId.addIds(documents.get(d).getId());
        }
        answers.add(
            rerank
                .rerank(
                    RerankRequest.newBuilder()
                        .setModelId("tiny-ce")
                        .setQuery("apple fig")
                        .setIndexDocuments(byId)
                        .build())
                .getDocumentsList());
      }
      assertThat(answers.getFirst()).hasSize(20);
      assertThat(answers.get(1)).as("3 shards").isEqualTo(answers.getFirst());
      assertThat(answers.get(2)).as("2 shards of 2 replicas").isEqualTo(answers.getFirst());
    }
  }
}
