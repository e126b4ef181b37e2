package dev.tenbin.index.lexical;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import dev.tenbin.core.Cancellation;
import dev.tenbin.core.CancelledException;
import dev.tenbin.index.rank.Hit;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class Bm25IndexTest {
  @TempDir Path dir;

  private Bm25Index index(Bm25Parameters parameters, LexicalDocument... docs) {
    Bm25Index index = Bm25Index.open(dir, LanguageAnalyzers.forLanguage("sw"), parameters);
    index.add(List.of(docs));
    index.commit();
    return index;
  }

  /** Lucene's BM25 without the (k1 + 1) factor, idf = ln(1 + (N - n + 0.5) / (n + 0.5)). */
  private static double bm25(
      double tf, double df, double n, double dl, double avgdl, double k1, double b) {
    double idf = Math.log(1 + (n - df + 0.5) / (df + 0.5));
    return idf * tf / (tf + k1 * (1 - b + b * dl / avgdl));
  }

  @Test
  void scoresFollowBm25WithTheGivenParameters() {
    try (Bm25Index index =
        index(
            new Bm25Parameters(0.9f, 0.4f),
            new LexicalDocument("d1", "", "apple banana apple"),
            new LexicalDocument("d2", "", "banana cherry"),
            new LexicalDocument("d3", "", "cherry date elder fig"))) {
      List<Hit> hits = index.search("apple", 10, Cancellation.NEVER);
      // N = 3, df(apple) = 1, tf = 2, dl = 3, avgdl = 9 / 3 = 3.
      assertThat(hits).extracting(Hit::docId).containsExactly("d1");
      assertThat(hits.get(0).score())
          .isCloseTo((float) bm25(2, 1, 3, 3, 3, 0.9, 0.4), within(1e-5f));

      List<Hit> banana = index.search("banana", 10, Cancellation.NEVER);
      // d2 is shorter (dl 2 < dl 3), so it wins with tf = 1 each.
      assertThat(banana).extracting(Hit::docId).containsExactly("d2", "d1");
      assertThat(banana.get(0).score())
          .isCloseTo((float) bm25(1, 2, 3, 2, 3, 0.9, 0.4), within(1e-5f));
      assertThat(banana.get(1).score())
          .isCloseTo((float) bm25(1, 2, 3, 3, 3, 0.9, 0.4), within(1e-5f));
    }
  }

  @Test
  void titleAndTextAreIndexedTogether() {
    try (Bm25Index index =
        index(Bm25Parameters.ANSERINI_DEFAULTS, new LexicalDocument("d1", "zebra", "stripes"))) {
      assertThat(index.search("zebra", 10, Cancellation.NEVER)).hasSize(1);
      assertThat(index.search("stripes", 10, Cancellation.NEVER)).hasSize(1);
    }
  }

  @Test
  void equalScoresAreOrderedByDocIdAscending() {
    try (Bm25Index index =
        index(
            Bm25Parameters.ANSERINI_DEFAULTS,
            new LexicalDocument("c", "", "same words"),
            new LexicalDocument("a", "", "same words"),
            new LexicalDocument("b", "", "same words"))) {
      List<Hit> hits = index.search("same", 10, Cancellation.NEVER);
      assertThat(hits).extracting(Hit::docId).containsExactly("a", "b", "c");
      assertThat(hits).extracting(Hit::score).containsOnly(hits.get(0).score());
    }
  }

  @Test
  void repeatedQueryTermsWeighMoreAsAnserini() {
    try (Bm25Index index =
        index(
            Bm25Parameters.ANSERINI_DEFAULTS,
            new LexicalDocument("d1", "", "alpha"),
            new LexicalDocument("d2", "", "beta"),
            new LexicalDocument("d3", "", "gamma"))) {
      float once = index.search("alpha beta", 10, Cancellation.NEVER).get(0).score();
      List<Hit> twice = index.search("alpha alpha beta", 10, Cancellation.NEVER);
      assertThat(twice.get(0).docId()).isEqualTo("d1");
      assertThat(twice.get(0).score()).isCloseTo(2 * once, within(1e-5f));
    }
  }

  @Test
  void queriesWithoutTermsReturnNothing() {
    try (Bm25Index index =
        index(Bm25Parameters.ANSERINI_DEFAULTS, new LexicalDocument("d1", "", "alpha"))) {
      assertThat(index.search("   ", 10, Cancellation.NEVER)).isEmpty();
    }
  }

  @Test
  void cancelledSearchStops() {
    try (Bm25Index index =
        index(Bm25Parameters.ANSERINI_DEFAULTS, new LexicalDocument("d1", "", "alpha"))) {
      org.assertj.core.api.Assertions.assertThatThrownBy(
              () -> index.search("alpha", 10, () -> true))
          .isInstanceOf(CancelledException.class);
    }
  }

  @Test
  void aDocumentLuceneRefusesIsNamedAndARollbackLeavesTheIndexAtItsLastCommit() {
    // The language analyzers cut tokens long before Lucene's 32,766-byte term limit; an analyzer
    // keeping the whole text as one term reaches it.
    try (Bm25Index index =
        Bm25Index.open(
            dir,
            new org.apache.lucene.analysis.core.KeywordAnalyzer(),
            Bm25Parameters.ANSERINI_DEFAULTS)) {
      index.add(List.of(new LexicalDocument("d1", "", "kept")));
      index.commit();
      List<LexicalDocument> batch =
          List.of(
              new LexicalDocument("d2", "", "fine"),
              new LexicalDocument("d3", "", "a".repeat(40_000)),
              new LexicalDocument("d4", "", "never reached"));
      assertThatThrownBy(() -> index.add(batch))
          .isInstanceOfSatisfying(
              Bm25Index.RefusedDocumentException.class,
              refused -> {
                assertThat(refused.position()).isEqualTo(1);
                assertThat(refused.immenseTerm()).isTrue();
              });
      index.rollback();
      assertThat(index.idsInOrder()).containsExactly("d1");
      index.add(List.of(new LexicalDocument("d2", "", "fine")));
      index.commit();
      assertThat(index.idsInOrder()).containsExactly("d1", "d2");
      assertThat(index.search("fine", 10, Cancellation.NEVER)).hasSize(1);
    }
  }

  @Test
  void mergingIntoOneSegmentKeepsTheOrderAndEveryRanking() {
    try (Bm25Index index =
        Bm25Index.open(
            dir, LanguageAnalyzers.forLanguage("en"), Bm25Parameters.ANSERINI_DEFAULTS)) {
      List<String> queries = List.of("apple", "pear apple", "plum", "apple plum pear banana");
      String[] words = {"apple", "pear", "plum", "banana", "cherry"};
      for (int batch = 0; batch < 4; batch++) {
        List<LexicalDocument> documents = new java.util.ArrayList<>();
        for (int i = 0; i < 30; i++) {
          int n = batch * 30 + i;
          documents.add(
              new LexicalDocument(
                  "d" + (997 * n) % 120,
                  "",
                  words[n % 5] + " " + words[(n / 5) % 5] + " " + words[n % 3].repeat(1 + n % 2)));
        }
        index.add(documents);
        index.commit();
      }
      assertThat(index.segments()).isEqualTo(4);
      List<String> ids = index.idsInOrder();
      List<List<Hit>> before = new java.util.ArrayList<>();
      for (String query : queries) {
        before.add(index.search(query, 1_000, Cancellation.NEVER));
      }

      assertThat(index.mergeIntoOneSegment()).isEqualTo(4);
      assertThat(index.segments()).isEqualTo(1);
      assertThat(index.idsInOrder()).isEqualTo(ids);
      for (int q = 0; q < queries.size(); q++) {
        // The same ids in the same order with bit-identical scores.
        assertThat(index.search(queries.get(q), 1_000, Cancellation.NEVER))
            .isEqualTo(before.get(q));
      }
      assertThat(index.mergeIntoOneSegment()).isEqualTo(1);

      index.add(List.of(new LexicalDocument("late", "", "apple")));
      assertThatThrownBy(index::mergeIntoOneSegment)
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("not committed");
    }
    try (Bm25Index reopened =
        Bm25Index.open(
            dir, LanguageAnalyzers.forLanguage("en"), Bm25Parameters.ANSERINI_DEFAULTS)) {
      assertThat(reopened.segments()).isEqualTo(1);
      assertThat(reopened.size()).isEqualTo(120);
    }
  }

  @Test
  void anIngestsMergesMakeNoSegmentOverTheCapAndAMergeIntoOneJoinsThemAll() {
    try (Bm25Index index =
        Bm25Index.open(
            dir, LanguageAnalyzers.forLanguage("en"), Bm25Parameters.ANSERINI_DEFAULTS)) {
      // Segments of 1,000 documents, one a commit: the log-doc merges join them up to the cap of
      // 5,000 documents and no further, so 100,000 documents stay in at least 20 segments (without
      // the cap ten segments of 10,000 would be joined into one); fewer than ten segments of 1,000
      // are left unmerged at the end.
      index.capMerges(5_000);
      commitBatches(index, 100, 1_000);
      index.awaitMerges();
      assertThat(index.size()).isEqualTo(100_000);
      assertThat(index.segments()).isBetween(20, 29);

      assertThat(index.mergeIntoOneSegment()).isBetween(20, 29);
      assertThat(index.segments()).isEqualTo(1);
      assertThat(index.size()).isEqualTo(100_000);
    }
  }

  private static void commitBatches(Bm25Index index, int batches, int size) {
    int start = index.size();
    for (int batch = 0; batch < batches; batch++) {
      List<LexicalDocument> documents = new java.util.ArrayList<>();
      for (int i = 0; i < size; i++) {
        int n = start + batch * size + i;
        documents.add(new LexicalDocument("d" + n, "", "apple pear " + n));
      }
      index.add(documents);
      index.commit();
    }
  }

  @Test
  void onlyCommittedDocumentsSurviveAReopen() {
    Bm25Index index =
        Bm25Index.open(dir, LanguageAnalyzers.forLanguage("en"), Bm25Parameters.ANSERINI_DEFAULTS);
    index.add(List.of(new LexicalDocument("d1", "", "kept")));
    index.commit();
    index.add(List.of(new LexicalDocument("d2", "", "lost")));
    assertThat(index.size()).isEqualTo(1);
    index.close();
    try (Bm25Index reopened =
        Bm25Index.open(
            dir, LanguageAnalyzers.forLanguage("en"), Bm25Parameters.ANSERINI_DEFAULTS)) {
      assertThat(reopened.idsInOrder()).containsExactly("d1");
    }
  }

  /** How the contents field of the index in {@code folder} is indexed. */
  private static org.apache.lucene.index.IndexOptions contentsOptions(Path folder)
      throws Exception {
    try (var directory = org.apache.lucene.store.FSDirectory.open(folder);
        var reader = org.apache.lucene.index.DirectoryReader.open(directory)) {
      return org.apache.lucene.index.FieldInfos.getMergedFieldInfos(reader)
          .fieldInfo(Bm25Index.CONTENTS_FIELD)
          .getIndexOptions();
    }
  }

  @Test
  void aNewIndexCountsTermsWithoutPositionsAndAnOlderIndexWithPositionsKeepsThem()
      throws Exception {
    List<LexicalDocument> first =
        List.of(
            new LexicalDocument("d1", "", "apple banana apple"),
            new LexicalDocument("d2", "", "banana cherry"));
    List<LexicalDocument> more = List.of(new LexicalDocument("d3", "", "apple cherry date"));
    Path counted = dir.resolve("counted");
    Path positional = dir.resolve("positional");
    // What an older version left: contents indexed with positions, its commit data as ever.
    try (var writer =
        new org.apache.lucene.index.IndexWriter(
            org.apache.lucene.store.FSDirectory.open(positional),
            new org.apache.lucene.index.IndexWriterConfig(LanguageAnalyzers.forLanguage("en")))) {
      for (LexicalDocument doc : first) {
        var lucene = new org.apache.lucene.document.Document();
        lucene.add(
            new org.apache.lucene.document.StringField(
                Bm25Index.ID_FIELD, doc.id(), org.apache.lucene.document.Field.Store.NO));
        lucene.add(new org.apache.lucene.document.StoredField(Bm25Index.ID_FIELD, doc.id()));
        lucene.add(
            new org.apache.lucene.document.SortedDocValuesField(
                Bm25Index.ID_FIELD, new org.apache.lucene.util.BytesRef(doc.id())));
        lucene.add(
            new org.apache.lucene.document.TextField(
                Bm25Index.CONTENTS_FIELD,
                doc.contents(),
                org.apache.lucene.document.Field.Store.NO));
        writer.addDocument(lucene);
      }
      writer.setLiveCommitData(java.util.Map.of(Bm25Index.DOCUMENTS_KEY, "2").entrySet());
      writer.commit();
    }
    List<List<Hit>> hits = new java.util.ArrayList<>();
    for (Path folder : List.of(counted, positional)) {
      try (Bm25Index index =
          Bm25Index.open(
              folder, LanguageAnalyzers.forLanguage("en"), Bm25Parameters.ANSERINI_DEFAULTS)) {
        if (folder == counted) {
          index.add(first);
        }
        index.add(more);
        index.commit();
        assertThat(index.countsOnly()).as(folder.toString()).isEqualTo(folder == counted);
        hits.add(index.search("apple cherry", 10, Cancellation.NEVER));
      }
    }
    assertThat(contentsOptions(counted))
        .isEqualTo(org.apache.lucene.index.IndexOptions.DOCS_AND_FREQS);
    assertThat(contentsOptions(positional))
        .isEqualTo(org.apache.lucene.index.IndexOptions.DOCS_AND_FREQS_AND_POSITIONS);
    // BM25 reads counts only: the same documents score alike, bit for bit, either way.
    assertThat(hits.get(0)).hasSize(3).isEqualTo(hits.get(1));
  }
}
