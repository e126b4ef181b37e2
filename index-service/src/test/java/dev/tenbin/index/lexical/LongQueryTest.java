package dev.tenbin.index.lexical;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenbin.core.Cancellation;
import dev.tenbin.index.rank.Hit;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.lucene.analysis.Analyzer;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.util.SmallFloat;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * BM25 queries of more distinct terms than Lucene's clause limit (1,024) are served, and exactly:
 * the ranking and scores equal an independent BM25 computed here from the documents' own words
 * (document frequencies, term frequencies and lengths counted in the test, Lucene's BM25 formula
 * and its one-byte length norm, the terms' scores summed in a double and rounded to float once),
 * and equal what one {@code BooleanQuery} of all the terms gives when the limit is raised for it.
 */
class LongQueryTest {
  private static final float K1 = 0.9f;
  private static final float B = 0.4f;
  private static final int VOCABULARY = 3_000;

  @TempDir Path dir;
  private final Analyzer analyzer = LanguageAnalyzers.forLanguage("en");
  private final List<LexicalDocument> documents = new ArrayList<>();
  private Bm25Index index;

  @BeforeEach
  void indexDocuments() {
    Random random = new Random(42);
    for (int d = 0; d < 400; d++) {
      int length = 3 + random.nextInt(120);
      StringBuilder text = new StringBuilder();
      for (int w = 0; w < length; w++) {
        // Skewed towards low numbers, so some words are in many documents and some in one.
        int word = (int) Math.min(VOCABULARY - 1, Math.abs(random.nextGaussian()) * 700);
        text.append(word(word)).append(' ');
      }
      documents.add(new LexicalDocument(String.format("doc%03d", 399 - d), "", text.toString()));
    }
    // Equal documents under different ids: their scores tie and the tie goes to the lower id.
    documents.add(new LexicalDocument("tie-b", "", documents.get(7).text()));
    documents.add(new LexicalDocument("tie-a", "", documents.get(7).text()));
    index = Bm25Index.open(dir, analyzer, new Bm25Parameters(K1, B));
    index.add(documents);
    index.commit();
  }

  @AfterEach
  void close() {
    index.close();
  }

  private static String word(int i) {
    return String.format("w%04d", i);
  }

  /** {@code distinct} different words, the first tenth of them twice (boost 2). */
  private static String query(int distinct, long seed) {
    List<Integer> words = new ArrayList<>();
    for (int i = 0; i < VOCABULARY; i++) {
      words.add(i);
    }
    java.util.Collections.shuffle(words, new Random(seed));
    StringBuilder text = new StringBuilder();
    for (int i = 0; i < distinct; i++) {
      text.append(word(words.get(i))).append(' ');
      if (i < distinct / 10) {
        text.append(word(words.get(i))).append(' ');
      }
    }
    return text.toString();
  }

  @Test
  void aQueryOf2000DistinctWordsRanksAndScoresAsAnIndependentBm25() {
    checkAgainstIndependentBm25(query(2_000, 1));
  }

  @Test
  void aQueryOf1025DistinctWordsOneOverTheClauseLimitRanksAndScoresAsAnIndependentBm25() {
    String query = query(1_025, 2);
    assertThat(BagOfWordsQuery.termCounts(analyzer, "contents", query)).hasSize(1_025);
    checkAgainstIndependentBm25(query);
  }

  @Test
  void aLongQueryScoresAsOneBooleanQueryOfAllItsTermsWithTheLimitRaised() {
    String query = query(2_000, 3);
    List<Hit> served = index.search(query, 1_000, Cancellation.NEVER);

    int limit = IndexSearcher.getMaxClauseCount();
    List<Hit> boolean_;
    try {
      IndexSearcher.setMaxClauseCount(4_096);
      assertThat(BagOfWordsQuery.build(analyzer, "contents", query))
          .isInstanceOf(org.apache.lucene.search.BooleanQuery.class);
      boolean_ = index.search(query, 1_000, Cancellation.NEVER);
    } finally {
      IndexSearcher.setMaxClauseCount(limit);
    }

    assertThat(served).isNotEmpty().isEqualTo(boolean_);
  }

  @Test
  void rescoringWithALongQueryGivesTheScoresSearchGives() {
    String query = query(2_000, 4);
    List<Hit> top = index.search(query, 50, Cancellation.NEVER);
    List<String> ids = index.idsInOrder();
    int[] ordinals = top.stream().mapToInt(hit -> ids.indexOf(hit.docId())).toArray();

    float[] scores = index.score(query, ordinals, Cancellation.NEVER);

    for (int i = 0; i < top.size(); i++) {
      assertThat(scores[i]).as(top.get(i).docId()).isEqualTo(top.get(i).score());
    }
  }

  @Test
  void queriesWithinTheLimitStayBooleanQueries() {
    assertThat(BagOfWordsQuery.build(analyzer, "contents", query(1_024, 5)))
        .isInstanceOf(org.apache.lucene.search.BooleanQuery.class);
    assertThat(BagOfWordsQuery.build(analyzer, "contents", query(1_025, 5)))
        .isInstanceOf(TermSumQuery.class);
  }

  /** The served top 1,000 (every matching document) against the independent ranking. */
  private void checkAgainstIndependentBm25(String query) {
    List<Hit> expected = independentBm25(query);
    assertThat(expected).hasSizeGreaterThan(300);

    List<Hit> served = index.search(query, 1_000, Cancellation.NEVER);

    assertThat(served)
        .extracting(Hit::docId)
        .containsExactlyElementsOf(expected.stream().map(Hit::docId).toList());
    // Bit for bit: the same float for every document.
    assertThat(served).isEqualTo(expected);
    int tieA = served.stream().map(Hit::docId).toList().indexOf("tie-a");
    int tieB = served.stream().map(Hit::docId).toList().indexOf("tie-b");
    assertThat(tieA).isNotNegative().isLessThan(tieB);
  }

  /**
   * BM25 as Lucene defines it, computed from the documents' words: idf = ln(1 + (N - df + 0.5) /
   * (df + 0.5)), weight = count in query × idf, a term's score weight - weight / (1 + tf / (k1 × (1
   * - b + b × dl / avgdl))) with dl the document's length through Lucene's one-byte norm
   * (SmallFloat.intToByte4) and avgdl = total words / N, in float as Lucene computes it; a
   * document's score the sum of its terms' in a double, rounded to float; ranked by score, then id.
   */
  private List<Hit> independentBm25(String query) {
    Map<String, Integer> queryCounts = new LinkedHashMap<>();
    for (String word : query.trim().split(" +")) {
      queryCounts.merge(word, 1, Integer::sum);
    }
    List<Map<String, Integer>> tfs = new ArrayList<>();
    Map<String, Integer> df = new HashMap<>();
    long totalWords = 0;
    for (LexicalDocument doc : documents) {
      Map<String, Integer> tf = new HashMap<>();
      for (String word : doc.contents().trim().split(" +")) {
        tf.merge(word, 1, Integer::sum);
        totalWords++;
      }
      tf.keySet().forEach(word -> df.merge(word, 1, Integer::sum));
      tfs.add(tf);
    }
    long n = documents.size();
    float avgdl = (float) (totalWords / (double) n);
    List<Hit> hits = new ArrayList<>();
    for (int d = 0; d < documents.size(); d++) {
      Map<String, Integer> tf = tfs.get(d);
      int length = tf.values().stream().mapToInt(Integer::intValue).sum();
      float dl = SmallFloat.byte4ToInt(SmallFloat.intToByte4(length));
      float normInverse = 1f / (K1 * ((1 - B) + B * dl / avgdl));
      double sum = 0;
      boolean matched = false;
      for (Map.Entry<String, Integer> term : queryCounts.entrySet()) {
        Integer freq = tf.get(term.getKey());
        if (freq == null) {
          continue;
        }
        matched = true;
        long docFreq = df.get(term.getKey());
        float idf = (float) Math.log(1 + (n - docFreq + 0.5D) / (docFreq + 0.5D));
        float weight = term.getValue().floatValue() * idf;
        sum += weight - weight / (1f + freq.floatValue() * normInverse);
      }
      if (matched) {
        hits.add(new Hit(documents.get(d).id(), (float) sum));
      }
    }
    hits.sort(Comparator.comparingDouble((Hit hit) -> -hit.score()).thenComparing(Hit::docId));
    return hits;
  }
}
