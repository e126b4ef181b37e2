package dev.tenbin.index.lexical;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tenbin.core.Cancellation;
import dev.tenbin.index.rank.Hit;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.StoredFields;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.search.Sort;
import org.apache.lucene.search.SortField;
import org.apache.lucene.search.TopFieldDocs;
import org.apache.lucene.search.similarities.BM25Similarity;
import org.apache.lucene.store.FSDirectory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link Bm25Index#score} scores only the given documents, exactly as a whole-index search; {@link
 * Bm25Index#search} gives what a search with a second scoring pass gives, bit for bit.
 */
class Bm25RescoringTest {
  private static final String[] WORDS =
      ("apple banana cherry date elder fig grape honey iris juniper kiwi lemon mango nectar olive"
              + " peach quince rasp sloe tangerine")
          .split(" ");

  @TempDir Path dir;

  private static String words(Random random, int count) {
    StringBuilder text = new StringBuilder();
    for (int i = 0; i < count; i++) {
      text.append(WORDS[random.nextInt(WORDS.length)]).append(' ');
    }
    return text.toString();
  }

  /**
   * Three commits of 400 documents each, so the index has several segments and more matches than
   * the 1,000 hits Lucene counts before it skips non-competitive blocks.
   */
  private Bm25Index threeSegmentIndex(Random random) {
    Bm25Index index =
        Bm25Index.open(dir, LanguageAnalyzers.forLanguage("en"), new Bm25Parameters(0.9f, 0.4f));
    int id = 0;
    for (int batch = 0; batch < 3; batch++) {
      List<LexicalDocument> docs = new ArrayList<>();
      for (int i = 0; i < 400; i++) {
        docs.add(
            new LexicalDocument(
                "d" + id++,
                words(random, random.nextInt(3)),
                words(random, 1 + random.nextInt(25))));
      }
      index.add(docs);
      index.commit();
    }
    return index;
  }

  @Test
  void scoresOfGivenDocumentsEqualThoseOfAWholeIndexSearchBitForBit() {
    Random random = new Random(16);
    try (Bm25Index index = threeSegmentIndex(random)) {
      List<String> ids = index.idsInOrder();
      int nonMatching = 0;
      for (int q = 0; q < 200; q++) {
        String query = words(random, 1 + random.nextInt(6)) + (q % 7 == 0 ? " unknownword" : "");
        Map<String, Float> wholeIndex = new HashMap<>();
        for (Hit hit : index.search(query, index.size(), Cancellation.NEVER)) {
          wholeIndex.put(hit.docId(), hit.score());
        }
        // Unsorted, with repeats, across all segments.
        int[] ordinals = new int[1 + random.nextInt(40)];
        for (int i = 0; i < ordinals.length; i++) {
          ordinals[i] = random.nextInt(index.size());
        }
        float[] scores = index.score(query, ordinals, Cancellation.NEVER);
        for (int i = 0; i < ordinals.length; i++) {
          Float expected = wholeIndex.get(ids.get(ordinals[i]));
          if (expected == null) {
            nonMatching++;
          }
          assertThat(Float.floatToIntBits(scores[i]))
              .as("query '%s', ordinal %d", query, ordinals[i])
              .isEqualTo(Float.floatToIntBits(expected == null ? 0f : expected));
        }
      }
      assertThat(nonMatching).as("documents matching no query term were scored too").isPositive();
    }
  }

  /** The reference search: scores from a second pass (doScores), ids from stored fields. */
  private List<Hit> searchAsBefore(String queryText, int k) throws Exception {
    Query query =
        BagOfWordsQuery.build(
            LanguageAnalyzers.forLanguage("en"), Bm25Index.CONTENTS_FIELD, queryText);
    if (query == null) {
      return List.of();
    }
    try (DirectoryReader reader = DirectoryReader.open(FSDirectory.open(dir))) {
      IndexSearcher searcher = new IndexSearcher(reader);
      searcher.setSimilarity(new BM25Similarity(0.9f, 0.4f));
      TopFieldDocs top =
          searcher.search(
              query,
              k,
              new Sort(
                  SortField.FIELD_SCORE, new SortField(Bm25Index.ID_FIELD, SortField.Type.STRING)),
              true);
      StoredFields stored = searcher.storedFields();
      List<Hit> hits = new ArrayList<>();
      for (ScoreDoc scoreDoc : top.scoreDocs) {
        hits.add(new Hit(stored.document(scoreDoc.doc).get(Bm25Index.ID_FIELD), scoreDoc.score));
      }
      return hits;
    }
  }

  @Test
  void searchGivesTheSameIdsAndBitIdenticalScoresAsBefore() throws Exception {
    Random random = new Random(7);
    try (Bm25Index index = threeSegmentIndex(random)) {
      for (int q = 0; q < 200; q++) {
        String query = words(random, 1 + random.nextInt(6));
        int k = 1 + random.nextInt(q % 2 == 0 ? 10 : 250);
        List<Hit> before = searchAsBefore(query, k);
        List<Hit> now = index.search(query, k, Cancellation.NEVER);
        assertThat(now)
            .extracting(Hit::docId)
            .as("query '%s', k %d", query, k)
            .containsExactlyElementsOf(before.stream().map(Hit::docId).toList());
        for (int i = 0; i < now.size(); i++) {
          assertThat(Float.floatToIntBits(now.get(i).score()))
              .isEqualTo(Float.floatToIntBits(before.get(i).score()));
        }
      }
    }
  }

  @Test
  void aQueryWithoutTermsOrNoOrdinalsScoresZeros() {
    try (Bm25Index index = threeSegmentIndex(new Random(1))) {
      assertThat(index.score("the of and", new int[] {0, 5}, Cancellation.NEVER))
          .containsExactly(0f, 0f);
      assertThat(index.score("apple", new int[0], Cancellation.NEVER)).isEmpty();
    }
  }

  @Test
  void anOrdinalOutsideTheIndexIsRefused() {
    try (Bm25Index index = threeSegmentIndex(new Random(2))) {
      assertThatThrownBy(() -> index.score("apple", new int[] {1200}, Cancellation.NEVER))
          .isInstanceOf(IndexOutOfBoundsException.class)
          .hasMessageContaining("ordinal 1200");
    }
  }
}
