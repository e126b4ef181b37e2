package dev.tenbin.index.lexical;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tenbin.core.Cancellation;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.lucene.analysis.Analyzer;
import org.apache.lucene.analysis.TokenFilter;
import org.apache.lucene.analysis.TokenStream;
import org.apache.lucene.analysis.Tokenizer;
import org.apache.lucene.analysis.core.WhitespaceTokenizer;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.FieldType;
import org.apache.lucene.document.TextField;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexOptions;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.search.similarities.BM25Similarity;
import org.apache.lucene.store.ByteBuffersDirectory;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.FSDirectory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A batch analysed ahead on the pool reaches the index whole and in order, as if Lucene had run the
 * analyzer on the writer's thread; closing it leaves no analysis running.
 */
class AheadAnalysisTest {
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

  @Test
  void aBatchOfManyChunksIsIndexedWholeInOrderAsTheAnalyzerWouldIndexIt() throws IOException {
    List<LexicalDocument> documents = documents(AheadAnalysis.CHUNK * 9 + 17);
    Analyzer english = LanguageAnalyzers.forLanguage("en");
    try (Bm25Index index = Bm25Index.open(dir, english, Bm25Parameters.ANSERINI_DEFAULTS)) {
      index.add(documents);
      index.commit();
      assertThat(index.idsInOrder())
          .containsExactlyElementsOf(documents.stream().map(LexicalDocument::id).toList());
      assertThat(index.search("word5", 1000, Cancellation.NEVER)).isNotEmpty();
    }
    FieldType counted = new FieldType(TextField.TYPE_NOT_STORED);
    counted.setIndexOptions(IndexOptions.DOCS_AND_FREQS);
    counted.freeze();
    try (Directory reference = new ByteBuffersDirectory()) {
      try (IndexWriter writer =
          new IndexWriter(
              reference, new IndexWriterConfig(english).setSimilarity(new BM25Similarity()))) {
        for (LexicalDocument document : documents) {
          Document lucene = new Document();
          lucene.add(new Field(AnalyzedContentsTest.FIELD, document.contents(), counted));
          writer.addDocument(lucene);
        }
      }
      try (DirectoryReader expected = DirectoryReader.open(reference);
          DirectoryReader actual = DirectoryReader.open(FSDirectory.open(dir))) {
        // One commit of fewer documents than the writer's buffer holds: one segment each.
        assertThat(expected.leaves()).hasSize(1);
        assertThat(actual.leaves()).hasSize(1);
        AnalyzedContentsTest.assertSameField(
            expected.leaves().getFirst().reader(),
            actual.leaves().getFirst().reader(),
            IndexOptions.DOCS_AND_FREQS,
            "Bm25Index");
      }
    }
  }

  @Test
  void aSmallBatchIsAnalysedOnTheCallersThread() {
    List<String> threads = new ArrayList<>();
    Analyzer recording = counting(new AtomicInteger(), new AtomicInteger(), threads);
    try (Bm25Index index = Bm25Index.open(dir, recording, Bm25Parameters.ANSERINI_DEFAULTS);
        AheadAnalysis analysis = AheadAnalysis.start(index, documents(AheadAnalysis.CHUNK))) {
      for (int i = 0; i < AheadAnalysis.CHUNK; i++) {
        analysis.next();
      }
      assertThatThrownBy(analysis::next).isInstanceOf(java.util.NoSuchElementException.class);
    }
    assertThat(threads).containsOnly(Thread.currentThread().getName());
  }

  @Test
  void closingStopsTheAnalysisAndWaitsForWhatRuns() throws InterruptedException {
    AtomicInteger running = new AtomicInteger();
    AtomicInteger analysed = new AtomicInteger();
    Analyzer slow = counting(running, analysed, new ArrayList<>());
    try (Bm25Index index = Bm25Index.open(dir, slow, Bm25Parameters.ANSERINI_DEFAULTS)) {
      AheadAnalysis analysis = AheadAnalysis.start(index, documents(AheadAnalysis.CHUNK * 40));
      analysis.next();
      analysis.close();
      assertThat(running).hasValue(0);
      int atClose = analysed.get();
      assertThat(atClose).isLessThan(AheadAnalysis.CHUNK * 40);
      Thread.sleep(100);
      assertThat(analysed).hasValue(atClose);
    }
  }

  @Test
  void aFailedAnalysisReachesTheWriterAndLeavesNothingRunning() {
    Analyzer failing =
        new Analyzer() {
          @Override
          protected TokenStreamComponents createComponents(String field) {
            Tokenizer source = new WhitespaceTokenizer();
            return new TokenStreamComponents(
                source,
                new TokenFilter(source) {
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
                });
          }
        };
    try (Bm25Index index = Bm25Index.open(dir, failing, Bm25Parameters.ANSERINI_DEFAULTS)) {
      assertThatThrownBy(() -> index.add(documents(AheadAnalysis.CHUNK * 6)))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessage("refused word100");
      index.rollback();
      assertThat(index.size()).isZero();
    }
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
