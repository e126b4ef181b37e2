package dev.tenbin.integration.retrieval;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenbin.client.index.IndexClient;
import dev.tenbin.eval.retrieval.Bm25Retrieval;
import dev.tenbin.eval.retrieval.RetrievalResult;
import dev.tenbin.index.server.IndexServer;
import dev.tenbin.scoring.beir.BeirDatasetReader;
import dev.tenbin.scoring.metrics.ScoredDoc;
import io.grpc.ManagedChannel;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import org.apache.lucene.analysis.CharArraySet;
import org.apache.lucene.analysis.standard.StandardAnalyzer;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.StringField;
import org.apache.lucene.document.TextField;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.index.Term;
import org.apache.lucene.search.BooleanClause;
import org.apache.lucene.search.BooleanQuery;
import org.apache.lucene.search.BoostQuery;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.search.TermQuery;
import org.apache.lucene.search.similarities.BM25Similarity;
import org.apache.lucene.store.ByteBuffersDirectory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The evaluation's BM25 run of a BEIR folder whose queries have 2,000 and 1,100 distinct words
 * (more than Lucene's 1,024 clauses; the index served INTERNAL for them and the evaluation failed)
 * gives the ranking and scores of an independent computation: a Lucene index of the same documents
 * built here with Lucene's own analyzer and BM25 (k1 0.9, b 0.4), searched with one {@code
 * BooleanQuery} of all the query's terms (a term written twice weighs twice) with the clause limit
 * raised for it, ties by document id.
 */
class LongQueryEvalTest {
  private static final int VOCABULARY = 3_000;

  @TempDir Path tmp;

  private static String word(int i) {
    return String.format("w%04d", i);
  }

  /** {@code distinct} different words, the first tenth of them twice. */
  private static List<String> queryWords(int distinct, long seed) {
    List<Integer> words = new ArrayList<>();
    for (int i = 0; i < VOCABULARY; i++) {
      words.add(i);
    }
    Collections.shuffle(words, new Random(seed));
    List<String> out = new ArrayList<>();
    for (int i = 0; i < distinct; i++) {
      out.add(word(words.get(i)));
      if (i < distinct / 10) {
        out.add(word(words.get(i)));
      }
    }
    return out;
  }

  @Test
  void anEvaluationWithQueriesOfThousandsOfWordsRanksAsOneBooleanQueryOfAllTheirTerms()
      throws IOException {
    Random random = new Random(17);
    Map<String, String> documents = new LinkedHashMap<>();
    for (int d = 0; d < 300; d++) {
      StringBuilder text = new StringBuilder();
      int length = 3 + random.nextInt(100);
      for (int w = 0; w < length; w++) {
        text.append(word((int) Math.min(VOCABULARY - 1, Math.abs(random.nextGaussian()) * 700)))
            .append(' ');
      }
      documents.put(String.format("d%03d", d), text.toString().strip());
    }
    // Two documents with the same words: their scores tie and the lower id comes first.
    documents.put("tie-b", documents.get("d007"));
    documents.put("tie-a", documents.get("d007"));
    Map<String, List<String>> queries = new LinkedHashMap<>();
    queries.put("long-2000", queryWords(2_000, 1));
    queries.put("long-1100", queryWords(1_100, 2));
    queries.put("short", List.of(word(3), word(40), word(3)));

    Path folder = Files.createDirectories(tmp.resolve("beir"));
    StringBuilder corpus = new StringBuilder();
    documents.forEach(
        (id, text) ->
            corpus
                .append("{\"_id\": \"")
                .append(id)
                .append("\", \"title\": \"\", \"text\": \"")
                .append(text)
                .append("\"}\n"));
    Files.writeString(folder.resolve("corpus.jsonl"), corpus);
    StringBuilder queryLines = new StringBuilder();
    StringBuilder qrels = new StringBuilder("query-id\tcorpus-id\tscore\n");
    queries.forEach(
        (id, words) -> {
          queryLines
              .append("{\"_id\": \"")
              .append(id)
              .append("\", \"text\": \"")
              .append(String.join(" ", words))
              .append("\"}\n");
          qrels.append(id).append("\td001\t1\n");
        });
    Files.writeString(folder.resolve("queries.jsonl"), queryLines);
    Files.createDirectories(folder.resolve("qrels"));
    Files.writeString(folder.resolve("qrels/test.tsv"), qrels);

    String name = "long-query-eval-" + UUID.randomUUID();
    Map<String, List<ScoredDoc>> served;
    try (IndexServer.Embedded server =
        IndexServer.startInProcess(name, tmp.resolve("index"), new SimpleMeterRegistry())) {
      ManagedChannel channel = InProcessChannelBuilder.forName(name).build();
      try {
        RetrievalResult result =
            new Bm25Retrieval(IndexClient.of(channel))
                .withoutLatencyProbe()
                .run(BeirDatasetReader.read(folder), "en", 100);
        served = result.rankings();
      } finally {
        channel.shutdownNow();
      }
    }

    Map<String, List<ScoredDoc>> independent = independent(documents, queries, 100);
    assertThat(independent.get("long-2000")).hasSize(100);
    assertThat(independent.get("long-1100")).hasSize(100);
    for (String query : queries.keySet()) {
      assertThat(served.get(query)).as(query).isEqualTo(independent.get(query));
    }
  }

  /** The top {@code k} of each query from a Lucene index of the documents built here. */
  private static Map<String, List<ScoredDoc>> independent(
      Map<String, String> documents, Map<String, List<String>> queries, int k) throws IOException {
    BM25Similarity bm25 = new BM25Similarity(0.9f, 0.4f);
    Map<String, List<ScoredDoc>> rankings = new LinkedHashMap<>();
    int limit = IndexSearcher.getMaxClauseCount();
    try (ByteBuffersDirectory directory = new ByteBuffersDirectory();
        StandardAnalyzer analyzer = new StandardAnalyzer(CharArraySet.EMPTY_SET)) {
      try (IndexWriter writer =
          new IndexWriter(directory, new IndexWriterConfig(analyzer).setSimilarity(bm25))) {
        for (Map.Entry<String, String> document : documents.entrySet()) {
          Document lucene = new Document();
          lucene.add(new StringField("id", document.getKey(), Field.Store.YES));
          lucene.add(new TextField("contents", document.getValue(), Field.Store.NO));
          writer.addDocument(lucene);
        }
      }
      IndexSearcher.setMaxClauseCount(4_096);
      try (DirectoryReader reader = DirectoryReader.open(directory)) {
        IndexSearcher searcher = new IndexSearcher(reader);
        searcher.setSimilarity(bm25);
        for (Map.Entry<String, List<String>> query : queries.entrySet()) {
          Map<String, Integer> counts = new LinkedHashMap<>();
          query.getValue().forEach(word -> counts.merge(word, 1, Integer::sum));
          BooleanQuery.Builder all = new BooleanQuery.Builder();
          counts.forEach(
              (word, count) ->
                  all.add(
                      new BoostQuery(new TermQuery(new Term("contents", word)), count),
                      BooleanClause.Occur.SHOULD));
          List<ScoredDoc> hits = new ArrayList<>();
          for (ScoreDoc hit : searcher.search(all.build(), documents.size()).scoreDocs) {
            hits.add(new ScoredDoc(searcher.storedFields().document(hit.doc).get("id"), hit.score));
          }
          hits.sort(
              Comparator.comparingDouble(ScoredDoc::score)
                  .reversed()
                  .thenComparing(ScoredDoc::docId));
          rankings.put(query.getKey(), List.copyOf(hits.subList(0, Math.min(k, hits.size()))));
        }
      }
    } finally {
      IndexSearcher.setMaxClauseCount(limit);
    }
    return rankings;
  }
}
