package dev.tenbin.index.lexical;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenbin.index.rank.Hit;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.apache.lucene.analysis.standard.StandardAnalyzer;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.SortedDocValuesField;
import org.apache.lucene.document.StoredField;
import org.apache.lucene.document.StringField;
import org.apache.lucene.document.TextField;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.index.NoMergePolicy;
import org.apache.lucene.search.FieldDoc;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.search.Sort;
import org.apache.lucene.search.SortField;
import org.apache.lucene.search.TopFieldDocs;
import org.apache.lucene.search.similarities.BM25Similarity;
import org.apache.lucene.store.ByteBuffersDirectory;
import org.apache.lucene.store.Directory;
import org.apache.lucene.util.BytesRef;
import org.junit.jupiter.api.Test;

/**
 * The two-pass top k equals Lucene's sort on (score, id doc values), hit for hit and bit for bit,
 * on indexes made of ties: many documents share their text, so whole groups share a score across
 * the k-th place, spread over several segments, with ids whose UTF-8 order differs from Java's
 * String order.
 */
class ScoreThenIdTopKTest {
  private static final String[] WORDS = {
    "apple", "banana", "cherry", "date", "elder", "fig", "grape", "honey", "iris", "jam"
  };

  @Test
  void equalsTheSortOnScoreThenIdOnIndexesFullOfTies() throws Exception {
    Random random = new Random(20261128);
    int compared = 0;
    int withTiesAcrossK = 0;
    for (int round = 0; round < 12; round++) {
      try (Directory directory = new ByteBuffersDirectory()) {
        write(directory, random);
        try (DirectoryReader reader = DirectoryReader.open(directory)) {
          assertThat(reader.leaves().size()).isGreaterThan(1);
          IndexSearcher searcher = new IndexSearcher(reader);
          searcher.setSimilarity(new BM25Similarity(0.9f, 0.4f));
          for (int q = 0; q < 40; q++) {
            String text = WORDS[random.nextInt(WORDS.length)];
            if (random.nextBoolean()) {
              text += " " + WORDS[random.nextInt(WORDS.length)];
            }
            Query query = BagOfWordsQuery.build(new StandardAnalyzer(), "contents", text);
            for (int k : new int[] {1, 3, 10, 37, 100, 1000}) {
              List<Hit> expected = reference(searcher, query, k);
              List<Hit> actual = ScoreThenIdTopK.search(searcher, query, k, "id");
              assertThat(actual).as("%s, k %d", text, k).isEqualTo(expected);
              compared++;
              if (expected.size() == k
                  && countScore(expected, expected.get(k - 1).score())
                      < countAll(searcher, query, expected.get(k - 1).score())) {
                withTiesAcrossK++;
              }
            }
          }
        }
      }
    }
    assertThat(compared).isEqualTo(12 * 40 * 6);
    // The case the second pass exists for happened, many times.
    assertThat(withTiesAcrossK).isGreaterThan(100);
  }

  private static void write(Directory directory, Random random) throws Exception {
    IndexWriterConfig config =
        new IndexWriterConfig(new StandardAnalyzer()).setMergePolicy(NoMergePolicy.INSTANCE);
    try (IndexWriter writer = new IndexWriter(directory, config)) {
      List<String> texts = new ArrayList<>();
      for (int t = 0; t < 12; t++) {
        StringBuilder text = new StringBuilder();
        for (int w = 0, n = 1 + random.nextInt(6); w < n; w++) {
          text.append(WORDS[random.nextInt(WORDS.length)]).append(' ');
        }
        texts.add(text.toString());
      }
      int documents = 300 + random.nextInt(400);
      for (int d = 0; d < documents; d++) {
        // Ids in UTF-8 byte order differ from String order: U+FF5E sorts after U+1F600's
        // surrogates as a String, before them as UTF-8 bytes.
        String id =
            switch (random.nextInt(4)) {
                  case 0 -> "d" + random.nextInt(100_000);
                  case 1 -> "\uFF5E" + random.nextInt(1000);
                  case 2 -> "\uD83D\uDE00" + random.nextInt(1000);
                  default -> Integer.toString(random.nextInt(1_000_000));
                }
                + "-"
                + d;
        Document document = new Document();
        document.add(new StringField("id", id, Field.Store.NO));
        document.add(new StoredField("id", id));
        document.add(new SortedDocValuesField("id", new BytesRef(id)));
        document.add(
            new TextField("contents", texts.get(random.nextInt(texts.size())), Field.Store.NO));
        writer.addDocument(document);
        if (random.nextInt(60) == 0) {
          writer.commit();
        }
      }
      writer.commit();
    }
  }

  /** What the sort on (score, id) returns: the order Bm25Index searched in before. */
  private static List<Hit> reference(IndexSearcher searcher, Query query, int k) throws Exception {
    TopFieldDocs top =
        searcher.search(
            query,
            k,
            new Sort(SortField.FIELD_SCORE, new SortField("id", SortField.Type.STRING)),
            false);
    List<Hit> hits = new ArrayList<>();
    for (ScoreDoc scoreDoc : top.scoreDocs) {
      FieldDoc doc = (FieldDoc) scoreDoc;
      hits.add(new Hit(searcher.storedFields().document(doc.doc).get("id"), (Float) doc.fields[0]));
    }
    return hits;
  }

  private static long countScore(List<Hit> hits, float score) {
    return hits.stream().filter(h -> h.score() == score).count();
  }

  private static long countAll(IndexSearcher searcher, Query query, float score) throws Exception {
    return reference(searcher, query, searcher.getIndexReader().maxDoc()).stream()
        .filter(h -> h.score() == score)
        .count();
  }
}
