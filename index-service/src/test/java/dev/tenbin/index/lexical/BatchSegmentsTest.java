package dev.tenbin.index.lexical;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tenbin.core.Cancellation;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import org.apache.lucene.analysis.Analyzer;
import org.apache.lucene.analysis.TokenFilter;
import org.apache.lucene.analysis.TokenStream;
import org.apache.lucene.analysis.Tokenizer;
import org.apache.lucene.analysis.core.KeywordAnalyzer;
import org.apache.lucene.analysis.core.WhitespaceTokenizer;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.index.LeafReader;
import org.apache.lucene.index.LogDocMergePolicy;
import org.apache.lucene.index.NumericDocValues;
import org.apache.lucene.index.PostingsEnum;
import org.apache.lucene.index.SortedDocValues;
import org.apache.lucene.index.StoredFields;
import org.apache.lucene.index.Terms;
import org.apache.lucene.index.TermsEnum;
import org.apache.lucene.search.DocIdSetIterator;
import org.apache.lucene.store.FSDirectory;
import org.apache.lucene.util.BytesRef;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A batch built in parts on the pool reaches the index whole and in order, and the index holds
 * exactly what its own writer makes of the same batch on one thread: the same terms, frequencies,
 * norms, ids, digests and stored text, for every language's analyzer. A document Lucene refuses is
 * named by its place in the batch; closing a build leaves nothing running.
 */
class BatchSegmentsTest {
  @TempDir Path dir;

  private static List<LexicalDocument> documents(int count) {
    List<LexicalDocument> documents = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      // Distinct, overlapping vocabularies, so postings, frequencies and lengths all differ.
      StringBuilder text = new StringBuilder();
      for (int w = 0; w <= i % 37; w++) {
        text.append("word").append((i * 7 + w * w) % 211).append(w % 3 == 0 ? " the " : " ");
      }
      documents.add(
          new LexicalDocument("doc-" + (count - i), "Title " + (i % 13), text.toString()));
    }
    return documents;
  }

  private static List<byte[]> digests(List<LexicalDocument> documents) {
    List<byte[]> digests = new ArrayList<>();
    for (int i = 0; i < documents.size(); i++) {
      // Some documents come without a digest.
      digests.add(i % 5 == 0 ? null : documents.get(i).id().getBytes(StandardCharsets.UTF_8));
    }
    return digests;
  }

  @Test
  void aBatchBuiltInPartsIsIndexedWholeInOrderAsTheIndexsOwnWriterIndexesIt() throws IOException {
    List<LexicalDocument> documents = documents(1_000);
    List<byte[]> digests = digests(documents);
    Path parts = dir.resolve("parts");
    Path oneWriter = dir.resolve("one-writer");
    Analyzer english = LanguageAnalyzers.forLanguage("en");
    try (Bm25Index index = Bm25Index.open(parts, english, Bm25Parameters.ANSERINI_DEFAULTS)) {
      index.add(documents.subList(0, 10), digests.subList(0, 10), 1);
      index.add(documents.subList(10, 1_000), digests.subList(10, 1_000), 5);
      index.commit();
      assertThat(index.idsInOrder())
          .containsExactlyElementsOf(documents.stream().map(LexicalDocument::id).toList());
      assertThat(index.search("word5", 1000, Cancellation.NEVER)).isNotEmpty();
    }
    try (DirectoryReader reader = DirectoryReader.open(FSDirectory.open(parts))) {
      // The writer's own segment, then one segment a part, appended in order.
      assertThat(reader.leaves()).hasSize(6);
    }
    try (Bm25Index index = Bm25Index.open(oneWriter, english, Bm25Parameters.ANSERINI_DEFAULTS)) {
      index.add(documents, digests, 1);
      index.commit();
    }
    assertSameIndex(oneWriter, parts, "en");
  }

  @Test
  void everyLanguageIndexesInPartsAsItsOwnWriterDoes() throws IOException {
    for (String language : LANGUAGES) {
      List<LexicalDocument> documents = new ArrayList<>();
      for (int i = 0; i < TEXTS.size() * 3; i++) {
        documents.add(
            new LexicalDocument("d" + i, i % 2 == 0 ? "" : "Title", TEXTS.get(i % TEXTS.size())));
      }
      assertSameBothWays(language, documents, 4);
    }
  }

  @Property(tries = 40)
  void anyBatchIndexesInPartsAsItsOwnWriterDoes(
      @ForAll("batches") List<String> texts,
      @ForAll("languages") String language,
      @ForAll @IntRange(min = 2, max = 5) int parts)
      throws IOException {
    List<LexicalDocument> documents = new ArrayList<>();
    for (int i = 0; i < texts.size(); i++) {
      documents.add(new LexicalDocument("d" + i, "", texts.get(i)));
    }
    assertSameBothWays(language, documents, Math.min(parts, documents.size()));
  }

  private void assertSameBothWays(String language, List<LexicalDocument> documents, int parts)
      throws IOException {
    // jqwik's properties get no JUnit @TempDir: a folder of their own, deleted after.
    Path root = Files.createTempDirectory("batch-segments-" + language);
    try {
      Analyzer analyzer = LanguageAnalyzers.forLanguage(language);
      for (int count : new int[] {1, parts}) {
        try (Bm25Index index =
            Bm25Index.open(
                root.resolve("parts-" + count), analyzer, Bm25Parameters.ANSERINI_DEFAULTS)) {
          index.add(documents, digests(documents), count);
          index.commit();
        }
      }
      assertSameIndex(root.resolve("parts-1"), root.resolve("parts-" + parts), language);
    } finally {
      try (var files = Files.walk(root)) {
        for (Path file : files.sorted(java.util.Comparator.reverseOrder()).toList()) {
          Files.delete(file);
        }
      }
    }
  }

  @Test
  void aDocumentLuceneRefusesInALaterPartIsNamedByItsPlaceInTheBatch() {
    try (Bm25Index index =
        Bm25Index.open(dir, new KeywordAnalyzer(), Bm25Parameters.ANSERINI_DEFAULTS)) {
      index.add(List.of(new LexicalDocument("kept", "", "kept")));
      index.commit();
      List<LexicalDocument> batch = new ArrayList<>();
      for (int i = 0; i < 40; i++) {
        batch.add(new LexicalDocument("d" + i, "", i == 33 ? "a".repeat(40_000) : "fine " + i));
      }
      assertThatThrownBy(() -> index.add(batch, null, 4))
          .isInstanceOfSatisfying(
              Bm25Index.RefusedDocumentException.class,
              refused -> {
                assertThat(refused.position()).isEqualTo(33);
                assertThat(refused.immenseTerm()).isTrue();
              });
      // Nothing of the batch reached the index's writer.
      index.commit();
      assertThat(index.idsInOrder()).containsExactly("kept");
      index.add(batch.subList(0, 30), null, 3);
      index.commit();
      assertThat(index.size()).isEqualTo(31);
    }
  }

  @Test
  void aSmallBatchIsWrittenOnTheCallersThread() {
    List<String> threads = new ArrayList<>();
    Analyzer recording = counting(new AtomicInteger(), new AtomicInteger(), threads);
    List<LexicalDocument> small = documents(BatchSegments.PART_DOCUMENTS);
    assertThat(BatchSegments.parts(small, 64)).isEqualTo(1);
    try (Bm25Index index = Bm25Index.open(dir, recording, Bm25Parameters.ANSERINI_DEFAULTS)) {
      index.add(small);
      index.commit();
      assertThat(index.size()).isEqualTo(small.size());
    }
    assertThat(threads).containsOnly(Thread.currentThread().getName());
  }

  @Test
  void aBatchIsCutIntoAtMostAPartAThreadOfEnoughDocumentsAndText() {
    // 4,096 passages of 400 characters: 12 parts of 128 Ki characters, at most one a thread.
    List<LexicalDocument> passages = new ArrayList<>();
    for (int i = 0; i < 4_096; i++) {
      passages.add(new LexicalDocument("p" + i, "", "x".repeat(400)));
    }
    assertThat(BatchSegments.parts(passages, 2)).isEqualTo(2);
    assertThat(BatchSegments.parts(passages, 16)).isEqualTo(12);
    assertThat(BatchSegments.parts(passages, 1)).isEqualTo(1);
    // 40 long documents of 100,000 characters: 2 parts of 16 documents at most.
    List<LexicalDocument> long40 = new ArrayList<>();
    for (int i = 0; i < 40; i++) {
      long40.add(new LexicalDocument("l" + i, "", "y".repeat(100_000)));
    }
    assertThat(BatchSegments.parts(long40, 16)).isEqualTo(2);
    assertThat(BatchSegments.parts(List.of(), 16)).isEqualTo(1);
  }

  @Test
  void closingStopsThePartsAndWaitsForWhatRuns() throws InterruptedException {
    AtomicInteger running = new AtomicInteger();
    AtomicInteger analysed = new AtomicInteger();
    Analyzer slow = counting(running, analysed, new ArrayList<>());
    List<LexicalDocument> documents = documents(4_000);
    try (Bm25Index index = Bm25Index.open(dir, slow, Bm25Parameters.ANSERINI_DEFAULTS)) {
      BatchSegments build = BatchSegments.start(index, documents, null, 4);
      while (analysed.get() == 0) {
        Thread.sleep(1);
      }
      build.close();
      assertThat(running).hasValue(0);
      int atClose = analysed.get();
      assertThat(atClose).isLessThan(documents.size());
      Thread.sleep(100);
      assertThat(analysed).hasValue(atClose);
      assertThat(index.size()).isZero();
    }
  }

  @Test
  void aFailedAnalysisReachesTheCallerAndLeavesNothingRunning() {
    AtomicInteger running = new AtomicInteger();
    Analyzer failing =
        new Analyzer() {
          @Override
          protected TokenStreamComponents createComponents(String field) {
            Tokenizer source = new WhitespaceTokenizer();
            return new TokenStreamComponents(
                source,
                new TokenFilter(source) {
                  @Override
                  public void reset() throws IOException {
                    super.reset();
                    running.incrementAndGet();
                  }

                  @Override
                  public boolean incrementToken() throws IOException {
                    if (!input.incrementToken()) {
                      return false;
                    }
                    if (input
                        .getAttribute(
                            org.apache.lucene.analysis.tokenattributes.CharTermAttribute.class)
                        .toString()
                        .equals("word100")) {
                      throw new IllegalArgumentException("refused word100");
                    }
                    return true;
                  }

                  @Override
                  public void close() throws IOException {
                    running.decrementAndGet();
                    super.close();
                  }
                });
          }
        };
    try (Bm25Index index = Bm25Index.open(dir, failing, Bm25Parameters.ANSERINI_DEFAULTS)) {
      assertThatThrownBy(() -> index.add(documents(800), null, 3))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessage("refused word100");
      assertThat(running).hasValue(0);
      index.rollback();
      assertThat(index.size()).isZero();
    }
  }

  /** Texts that exercise stop words (also last), possessives, repeats, compounds and scripts. */
  private static final List<String> TEXTS =
      List.of(
          "The quick brown fox's tail: the fox jumps over the lazy dog, and the dog sleeps in the",
          "Running runners ran; running is what a runner's legs do. 42 km, 3.5 hours, e-mail@x.org",
          "関西国際空港に行きました。東京都庁の展望台から富士山が見える。",
          "我们在北京大学学习自然语言处理和信息检索。",
          "가곡역에서 잠실역까지 지하철을 타고 갔습니다. 한국어 형태소 분석기",
          "ภาษาไทยไม่มีการเว้นวรรคระหว่างคำ การตัดคำจึงสำคัญ",
          "Donaudampfschifffahrtsgesellschaftskapitän und die Bundesausbildungsförderung",
          "المكتبة العربية الكبيرة في القاهرة والكتب القديمة",
          "Российская национальная библиотека и её читатели читали",
          "Tiếng Việt có dấu: Hà Nội là thủ đô của Việt Nam",
          "",
          "   ,,, ... !!! the a an of");

  private static final List<String> LANGUAGES =
      List.of("en", "de", "fr", "ar", "ru", "hi", "fi", "tr", "ja", "zh", "ko", "th", "vi", "sw");

  @Provide
  Arbitrary<String> languages() {
    return Arbitraries.of("en", "de", "ja", "zh", "ko", "th", "sw");
  }

  @Provide
  Arbitrary<List<String>> batches() {
    Arbitrary<String> word =
        Arbitraries.oneOf(
            Arbitraries.of(
                "the", "a", "of", "and", "fox's", "running", "runs", "ran", "U.S.A.", "e-mail"),
            Arbitraries.strings().withCharRange('a', 'z').ofMinLength(1).ofMaxLength(12),
            Arbitraries.strings().withCharRange('一', '龥').ofMinLength(1).ofMaxLength(6),
            Arbitraries.strings().withCharRange('ぁ', 'ん').ofMinLength(1).ofMaxLength(6),
            Arbitraries.strings().withCharRange('가', '힣').ofMinLength(1).ofMaxLength(4),
            Arbitraries.strings().withCharRange('ก', '๛').ofMinLength(1).ofMaxLength(8),
            Arbitraries.strings().withChars(" .,;:!?'\"()-\t\n").ofMinLength(1).ofMaxLength(3));
    Arbitrary<String> text = word.list().ofMaxSize(40).map(words -> String.join(" ", words));
    return text.list().ofMinSize(1).ofMaxSize(12);
  }

  /**
   * Merges each index into one segment (adjacent merges keep the order) and compares everything the
   * BM25 index records: the contents field's terms, postings with frequencies and norms, and each
   * document's id (stored and as doc values), digest, title and text.
   */
  private static void assertSameIndex(Path expectedDir, Path actualDir, String label)
      throws IOException {
    for (Path index : List.of(expectedDir, actualDir)) {
      try (IndexWriter writer =
          new IndexWriter(
              FSDirectory.open(index),
              new IndexWriterConfig()
                  .setMergePolicy(new LogDocMergePolicy())
                  .setOpenMode(IndexWriterConfig.OpenMode.APPEND))) {
        writer.forceMerge(1);
      }
    }
    try (DirectoryReader expectedReader = DirectoryReader.open(FSDirectory.open(expectedDir));
        DirectoryReader actualReader = DirectoryReader.open(FSDirectory.open(actualDir))) {
      LeafReader expected = expectedReader.leaves().getFirst().reader();
      LeafReader actual = actualReader.leaves().getFirst().reader();
      assertSameContents(expected, actual, label);
      StoredFields expectedStored = expected.storedFields();
      StoredFields actualStored = actual.storedFields();
      SortedDocValues expectedIds = expected.getSortedDocValues(Bm25Index.ID_FIELD);
      SortedDocValues actualIds = actual.getSortedDocValues(Bm25Index.ID_FIELD);
      for (int doc = 0; doc < expected.maxDoc(); doc++) {
        var wanted = expectedStored.document(doc);
        var got = actualStored.document(doc);
        for (String field :
            List.of(Bm25Index.ID_FIELD, Bm25Index.TITLE_FIELD, Bm25Index.TEXT_FIELD)) {
          assertThat(got.get(field))
              .as(label + " " + field + " of " + doc)
              .isEqualTo(wanted.get(field));
        }
        assertThat(got.getBinaryValue(Bm25Index.DIGEST_FIELD))
            .as(label + " digest of " + doc)
            .isEqualTo(wanted.getBinaryValue(Bm25Index.DIGEST_FIELD));
        assertThat(actualIds.advanceExact(doc)).isEqualTo(expectedIds.advanceExact(doc));
        assertThat(actualIds.lookupOrd(actualIds.ordValue()))
            .as(label + " id doc value of " + doc)
            .isEqualTo(expectedIds.lookupOrd(expectedIds.ordValue()));
      }
    }
  }

  private static void assertSameContents(LeafReader expected, LeafReader actual, String label)
      throws IOException {
    String field = Bm25Index.CONTENTS_FIELD;
    assertThat(actual.maxDoc()).as(label).isEqualTo(expected.maxDoc());
    Terms expectedTerms = expected.terms(field);
    Terms actualTerms = actual.terms(field);
    if (expectedTerms == null) {
      assertThat(actualTerms).as(label).isNull();
    } else {
      assertThat(actualTerms.getSumTotalTermFreq())
          .as(label)
          .isEqualTo(expectedTerms.getSumTotalTermFreq());
      assertThat(actualTerms.getSumDocFreq()).as(label).isEqualTo(expectedTerms.getSumDocFreq());
      assertThat(actualTerms.getDocCount()).as(label).isEqualTo(expectedTerms.getDocCount());
      TermsEnum wanted = expectedTerms.iterator();
      TermsEnum got = actualTerms.iterator();
      for (BytesRef term = wanted.next(); term != null; term = wanted.next()) {
        BytesRef other = got.next();
        assertThat(other).as(label).isEqualTo(term);
        assertThat(got.docFreq()).as(label + " " + term.utf8ToString()).isEqualTo(wanted.docFreq());
        assertThat(got.totalTermFreq()).as(label).isEqualTo(wanted.totalTermFreq());
        PostingsEnum a = wanted.postings(null, PostingsEnum.FREQS);
        PostingsEnum b = got.postings(null, PostingsEnum.FREQS);
        for (int doc = a.nextDoc(); doc != DocIdSetIterator.NO_MORE_DOCS; doc = a.nextDoc()) {
          assertThat(b.nextDoc()).as(label).isEqualTo(doc);
          assertThat(b.freq()).as(label).isEqualTo(a.freq());
        }
        assertThat(b.nextDoc()).as(label).isEqualTo(DocIdSetIterator.NO_MORE_DOCS);
      }
      assertThat(got.next()).as(label).isNull();
    }
    assertThat(norms(actual, field)).as(label + " norms").isEqualTo(norms(expected, field));
  }

  /** Each document's norm of the field, as "doc=norm" in doc order (none: no norms). */
  private static List<String> norms(LeafReader reader, String field) throws IOException {
    NumericDocValues norms = reader.getNormValues(field);
    List<String> all = new ArrayList<>();
    for (int doc = norms == null ? DocIdSetIterator.NO_MORE_DOCS : norms.nextDoc();
        doc != DocIdSetIterator.NO_MORE_DOCS;
        doc = norms.nextDoc()) {
      all.add(doc + "=" + norms.longValue());
    }
    return all;
  }

  /**
   * An analyzer whose streams count themselves while open ({@code running}), count each analysed
   * text ({@code analysed}), record their thread, and take a millisecond per text.
   */
  private static Analyzer counting(
      AtomicInteger running, AtomicInteger analysed, List<String> threads) {
    return new Analyzer() {
      @Override
      protected TokenStreamComponents createComponents(String field) {
        Tokenizer source = new WhitespaceTokenizer();
        TokenStream counted =
            new TokenFilter(source) {
              @Override
              public void reset() throws IOException {
                super.reset();
                running.incrementAndGet();
                synchronized (threads) {
                  threads.add(Thread.currentThread().getName());
                }
                try {
                  Thread.sleep(1);
                } catch (InterruptedException e) {
                  Thread.currentThread().interrupt();
                }
              }

              @Override
              public boolean incrementToken() throws IOException {
                return input.incrementToken();
              }

              @Override
              public void close() throws IOException {
                analysed.incrementAndGet();
                running.decrementAndGet();
                super.close();
              }
            };
        return new TokenStreamComponents(source, counted);
      }
    };
  }
}
