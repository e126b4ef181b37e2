package dev.tenbin.bench.index;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tenbin.index.lexical.LanguageAnalyzers;
import dev.tenbin.index.lexical.LexicalDocument;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.apache.lucene.analysis.Analyzer;
import org.apache.lucene.analysis.TokenStream;
import org.apache.lucene.analysis.tokenattributes.CharTermAttribute;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.FieldInfos;
import org.apache.lucene.index.IndexOptions;
import org.apache.lucene.index.StoredFields;
import org.apache.lucene.index.Term;
import org.apache.lucene.search.BooleanClause;
import org.apache.lucene.search.BooleanQuery;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.search.TermQuery;
import org.apache.lucene.search.similarities.BM25Similarity;
import org.apache.lucene.store.FSDirectory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LuceneIndexingTest {
  private static final List<String> QUERIES =
      List.of("river", "stone bridge", "quiet harbour lights", "winter market", "old mill road");

  @TempDir Path temp;

  /** Documents of words drawn from a small vocabulary, so that queries match many of them. */
  private static List<LexicalDocument> documents(int count) {
    String[] words = {
      "river", "stone", "bridge", "quiet", "harbour", "lights", "winter", "market", "old", "mill",
      "road", "north", "garden", "bells", "ferry", "lantern", "orchard", "valley", "tower", "salt"
    };
    Random random = new Random(7);
    List<LexicalDocument> documents = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      StringBuilder text = new StringBuilder();
      int length = 5 + random.nextInt(40);
      for (int w = 0; w < length; w++) {
        text.append(words[(int) Math.min(words.length - 1, Math.abs(random.nextGaussian()) * 6)])
            .append(' ');
      }
      documents.add(
          new LexicalDocument("doc-" + i, i % 3 == 0 ? "title " + i : "", text.toString()));
    }
    return documents;
  }

  @Test
  void everyDocumentScoresBitForBitAsInACollectionOfTheSameDocuments() throws IOException {
    List<LexicalDocument> documents = documents(2_500);
    // A commit after every 700 documents (not a multiple of a batch), and one at the end.
    LuceneIndexing.Result result =
        LuceneIndexing.index(documents.iterator(), "en", 2, 700, temp.resolve("lucene"));
    assertThat(result.documents()).isEqualTo(2_500);
    assertThat(result.commits()).isEqualTo(4);
    assertThat(result.segments()).isPositive();

    try (Bm25CoreBenchmark core = Bm25CoreBenchmark.open(temp.resolve("data"))) {
      List<Bm25CoreBenchmark.Document> same = new ArrayList<>();
      for (LexicalDocument document : documents) {
        same.add(new Bm25CoreBenchmark.Document(document.id(), document.title(), document.text()));
      }
      core.ingest("collection", "en", same);

      try (var directory = FSDirectory.open(temp.resolve("lucene"));
          DirectoryReader reader = DirectoryReader.open(directory);
          Analyzer analyzer = LanguageAnalyzers.forLanguage("en")) {
        assertThat(reader.numDocs()).isEqualTo(2_500);
        assertThat(FieldInfos.getMergedFieldInfos(reader).fieldInfo("contents").getIndexOptions())
            .isEqualTo(IndexOptions.DOCS_AND_FREQS);
        Set<String> ids = new HashSet<>();
        StoredFields stored = reader.storedFields();
        for (int doc = 0; doc < reader.maxDoc(); doc++) {
          var fields = stored.document(doc);
          ids.add(fields.get("id"));
          int ordinal = Integer.parseInt(fields.get("id").substring("doc-".length()));
          assertThat(fields.get("text")).isEqualTo(documents.get(ordinal).text());
          assertThat(fields.get("title")).isEqualTo(documents.get(ordinal).title());
        }
        assertThat(ids).hasSize(2_500);

        IndexSearcher searcher = new IndexSearcher(reader);
        searcher.setSimilarity(new BM25Similarity(0.9f, 0.4f));
        for (String query : QUERIES) {
          Map<String, Float> lucene = new HashMap<>();
          for (ScoreDoc hit : searcher.search(termsOf(analyzer, query), 2_500).scoreDocs) {
            lucene.put(stored.document(hit.doc).get("id"), hit.score);
          }
          Map<String, Float> collection = new HashMap<>();
          for (Bm25CoreBenchmark.ScoredId hit : core.hits("collection", query, 2_500)) {
            collection.put(hit.docId(), hit.score());
          }
          assertThat(lucene).as(query).hasSizeGreaterThan(100).isEqualTo(collection);
        }
      }
    }
  }

  private static BooleanQuery termsOf(Analyzer analyzer, String query) throws IOException {
    BooleanQuery.Builder terms = new BooleanQuery.Builder();
    try (TokenStream stream = analyzer.tokenStream("contents", query)) {
      CharTermAttribute term = stream.addAttribute(CharTermAttribute.class);
      stream.reset();
      while (stream.incrementToken()) {
        terms.add(new TermQuery(new Term("contents", term.toString())), BooleanClause.Occur.SHOULD);
      }
      stream.end();
    }
    return terms.build();
  }

  @Test
  void aDocumentLuceneRefusesStopsTheRunWithLucenesReason() {
    List<LexicalDocument> documents = new ArrayList<>(documents(5_000));
    // An id is indexed as one term, and Lucene refuses terms over 32,766 bytes.
    documents.set(1_500, new LexicalDocument("x".repeat(40_000), "", "river"));

    assertThatThrownBy(
            () -> LuceneIndexing.index(documents.iterator(), "en", 2, 0, temp.resolve("refused")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("immense term");
  }

  @Test
  void fewerThanOneThreadOrANegativeCommitIntervalIsRefused() {
    assertThatThrownBy(
            () -> LuceneIndexing.index(documents(10).iterator(), "en", 0, 0, temp.resolve("none")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("threads must be at least 1, got 0");
    assertThatThrownBy(
            () -> LuceneIndexing.index(documents(10).iterator(), "en", 1, -1, temp.resolve("no")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("commitEvery must be at least 0, got -1");
  }
}
