package dev.tenbin.eval.retrieval;

import dev.tenbin.eval.dataset.BeirDataset;
import dev.tenbin.eval.dataset.CorpusDocument;
import dev.tenbin.eval.metrics.ScoredDoc;
import dev.tenbin.proto.common.v1.Ranking;
import dev.tenbin.proto.common.v1.ScoredDocument;
import dev.tenbin.proto.index.v1.CollectionSpec;
import dev.tenbin.proto.index.v1.CreateCollectionRequest;
import dev.tenbin.proto.index.v1.Document;
import dev.tenbin.proto.index.v1.DropCollectionRequest;
import dev.tenbin.proto.index.v1.Family;
import dev.tenbin.proto.index.v1.IndexServiceGrpc;
import dev.tenbin.proto.index.v1.Query;
import dev.tenbin.proto.index.v1.SearchRequest;
import dev.tenbin.proto.index.v1.SearchResponse;
import io.grpc.Channel;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

/**
 * BM25 over the index service: creates a collection in the dataset's language, ingests title and
 * text, searches the evaluated queries, and drops the collection again.
 */
public final class Bm25Retrieval {
  private static final int INGEST_BATCH = 1_000;
  private static final int SEARCH_BATCH = 200;
  private static final long DEADLINE_SECONDS = 600;

  private final Channel channel;

  public Bm25Retrieval(Channel channel) {
    this.channel = channel;
  }

  public RetrievalResult run(BeirDataset dataset, String language, int topK) {
    var index = IndexServiceGrpc.newBlockingStub(channel);
    String collection = "eval-" + UUID.randomUUID();
    long start = System.nanoTime();
    index
        .withDeadlineAfter(DEADLINE_SECONDS, TimeUnit.SECONDS)
        .createCollection(
            CreateCollectionRequest.newBuilder()
                .setSpec(CollectionSpec.newBuilder().setName(collection).setLanguage(language))
                .build());
    try {
      List<Document> documents = new ArrayList<>(dataset.corpus().size());
      for (CorpusDocument doc : dataset.corpus()) {
        documents.add(
            Document.newBuilder().setId(doc.id()).setTitle(doc.title()).setText(doc.text()).build());
      }
      new CollectionIngester(channel, INGEST_BATCH, DEADLINE_SECONDS).ingest(collection, documents);
      long indexed = System.nanoTime();

      Map<String, List<ScoredDoc>> rankings = new LinkedHashMap<>();
      List<String> queryIds = dataset.evaluatedQueryIds();
      for (int from = 0; from < queryIds.size(); from += SEARCH_BATCH) {
        SearchRequest.Builder request =
            SearchRequest.newBuilder()
                .setCollection(collection)
                .setFamily(Family.FAMILY_BM25)
                .setTopK(topK);
        for (String queryId : queryIds.subList(from, Math.min(queryIds.size(), from + SEARCH_BATCH))) {
          request.addQueries(
              Query.newBuilder().setId(queryId).setText(dataset.queries().get(queryId)));
        }
        SearchResponse response =
            index.withDeadlineAfter(DEADLINE_SECONDS, TimeUnit.SECONDS).search(request.build());
        for (Ranking ranking : response.getRankingsList()) {
          rankings.put(ranking.getQueryId(), toScoredDocs(ranking));
        }
      }
      long searched = System.nanoTime();
      return new RetrievalResult(rankings, indexed - start, searched - indexed, documents.size());
    } finally {
      index
          .withDeadlineAfter(60, TimeUnit.SECONDS)
          .dropCollection(DropCollectionRequest.newBuilder().setName(collection).build());
    }
  }

  static List<ScoredDoc> toScoredDocs(Ranking ranking) {
    List<ScoredDoc> docs = new ArrayList<>(ranking.getDocumentsCount());
    for (ScoredDocument doc : ranking.getDocumentsList()) {
      docs.add(new ScoredDoc(doc.getDocId(), doc.getScore()));
    }
    return docs;
  }
}
