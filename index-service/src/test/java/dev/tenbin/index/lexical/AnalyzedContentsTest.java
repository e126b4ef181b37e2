package dev.tenbin.index.lexical;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.apache.lucene.analysis.Analyzer;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.FieldType;
import org.apache.lucene.document.TextField;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexOptions;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.index.LeafReader;
import org.apache.lucene.index.NumericDocValues;
import org.apache.lucene.index.PostingsEnum;
import org.apache.lucene.index.Terms;
import org.apache.lucene.index.TermsEnum;
import org.apache.lucene.search.DocIdSetIterator;
import org.apache.lucene.search.similarities.BM25Similarity;
import org.apache.lucene.store.ByteBuffersDirectory;
import org.apache.lucene.store.Directory;
import org.apache.lucene.util.BytesRef;
import org.junit.jupiter.api.Test;

/**
 * Replayed tokens index as the analyzer's own: for each language's analyzer and both ways the
 * contents field is recorded (counts only; counts and positions), an index written from {@link
 * AnalyzedContents#tokens()} holds the same terms, document and term frequencies, positions and
 * norms as one where Lucene runs the analyzer on the text.
 */
class AnalyzedContentsTest {
  static final String FIELD = "contents";

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

  @Test
  void everyLanguagesTokensIndexAsTheAnalyzersOwn() throws IOException {
    for (String language : LANGUAGES) {
      Analyzer analyzer = LanguageAnalyzers.forLanguage(language);
      for (IndexOptions options :
          List.of(IndexOptions.DOCS_AND_FREQS, IndexOptions.DOCS_AND_FREQS_AND_POSITIONS)) {
        assertSameInversion(analyzer, TEXTS, options, language);
      }
    }
  }

  @Test
  void countsTheTokensTheAnalyzerGives() {
    Analyzer english = LanguageAnalyzers.forLanguage("en");
    // "the" is a stop word; "fox's" loses its possessive; "jumps" and "jumping" stem to "jump".
    assertThat(AnalyzedContents.of(english, FIELD, "The fox's jumps, jumping the").tokenCount())
        .isEqualTo(3);
    assertThat(AnalyzedContents.of(english, FIELD, "").tokenCount()).isZero();
  }

  @Property(tries = 60)
  void anyTextIndexesAsTheAnalyzersOwn(
      @ForAll("texts") List<String> texts, @ForAll("languages") String language)
      throws IOException {
    Analyzer analyzer = LanguageAnalyzers.forLanguage(language);
    assertSameInversion(analyzer, texts, IndexOptions.DOCS_AND_FREQS, language);
    assertSameInversion(analyzer, texts, IndexOptions.DOCS_AND_FREQS_AND_POSITIONS, language);
  }

  @Provide
  Arbitrary<String> languages() {
    return Arbitraries.of("en", "de", "ja", "zh", "ko", "th", "sw");
  }

  @Provide
  Arbitrary<List<String>> texts() {
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
    return text.list().ofMinSize(1).ofMaxSize(6);
  }

  /** Writes {@code texts} both ways and compares everything the field records. */
  static void assertSameInversion(
      Analyzer analyzer, List<String> texts, IndexOptions options, String label)
      throws IOException {
    FieldType type = new FieldType(TextField.TYPE_NOT_STORED);
    type.setIndexOptions(options);
    type.freeze();
    try (Directory analysed = new ByteBuffersDirectory();
        Directory replayed = new ByteBuffersDirectory()) {
      write(analysed, analyzer, texts, text -> new Field(FIELD, text, type));
      write(
          replayed,
          analyzer,
          texts,
          text -> new Field(FIELD, AnalyzedContents.of(analyzer, FIELD, text).tokens(), type));
      try (DirectoryReader expected = DirectoryReader.open(analysed);
          DirectoryReader actual = DirectoryReader.open(replayed)) {
        assertSameField(
            expected.leaves().getFirst().reader(),
            actual.leaves().getFirst().reader(),
            options,
            label + " " + options);
      }
    }
  }

  private static void write(
      Directory directory,
      Analyzer analyzer,
      List<String> texts,
      java.util.function.Function<String, Field> field)
      throws IOException {
    IndexWriterConfig config = new IndexWriterConfig(analyzer).setSimilarity(new BM25Similarity());
    try (IndexWriter writer = new IndexWriter(directory, config)) {
      for (String text : texts) {
        Document document = new Document();
        document.add(field.apply(text));
        writer.addDocument(document);
      }
      writer.forceMerge(1);
      writer.commit();
    }
  }

  static void assertSameField(
      LeafReader expected, LeafReader actual, IndexOptions options, String label)
      throws IOException {
    assertThat(actual.maxDoc()).as(label).isEqualTo(expected.maxDoc());
    Terms expectedTerms = expected.terms(FIELD);
    Terms actualTerms = actual.terms(FIELD);
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
      boolean positions = options == IndexOptions.DOCS_AND_FREQS_AND_POSITIONS;
      int flags = positions ? PostingsEnum.POSITIONS : PostingsEnum.FREQS;
      for (BytesRef term = wanted.next(); term != null; term = wanted.next()) {
        BytesRef other = got.next();
        assertThat(other).as(label).isEqualTo(term);
        assertThat(got.docFreq()).as(label + " " + term.utf8ToString()).isEqualTo(wanted.docFreq());
        assertThat(got.totalTermFreq()).as(label).isEqualTo(wanted.totalTermFreq());
        PostingsEnum a = wanted.postings(null, flags);
        PostingsEnum b = got.postings(null, flags);
        for (int doc = a.nextDoc(); doc != DocIdSetIterator.NO_MORE_DOCS; doc = a.nextDoc()) {
          assertThat(b.nextDoc()).as(label).isEqualTo(doc);
          assertThat(b.freq()).as(label).isEqualTo(a.freq());
          for (int i = 0; positions && i < a.freq(); i++) {
            assertThat(b.nextPosition()).as(label).isEqualTo(a.nextPosition());
          }
        }
        assertThat(b.nextDoc()).as(label).isEqualTo(DocIdSetIterator.NO_MORE_DOCS);
      }
      assertThat(got.next()).as(label).isNull();
    }
    assertThat(norms(actual)).as(label + " norms").isEqualTo(norms(expected));
  }

  /** Each document's norm of the field, as "doc=norm" in doc order (none: no norms). */
  private static List<String> norms(LeafReader reader) throws IOException {
    NumericDocValues norms = reader.getNormValues(FIELD);
    List<String> all = new java.util.ArrayList<>();
    for (int doc = norms == null ? DocIdSetIterator.NO_MORE_DOCS : norms.nextDoc();
        doc != DocIdSetIterator.NO_MORE_DOCS;
        doc = norms.nextDoc()) {
      all.add(doc + "=" + norms.longValue());
    }
    return all;
  }
}
