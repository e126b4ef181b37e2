package dev.tenbin.model.tokenizer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenbin.testing.models.TinyOnnxModels;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The pure-Java WordPiece gives the native Hugging Face tokenizer's ids on every character it
 * accepts, on random texts and on real queries, and declines whatever it cannot reproduce.
 */
class BertWordPieceTest {
  static TextTokenizer english;
  static TextTokenizer chinese;
  static BertWordPiece englishFast;
  static BertWordPiece chineseFast;

  @BeforeAll
  static void load() throws IOException {
    byte[] en = resource("bge-small-en-v1.5-tokenizer.json");
    byte[] zh = resource("bge-small-zh-v1.5-tokenizer.json");
    english = new TextTokenizer(en, 512);
    chinese = new TextTokenizer(zh, 512);
    englishFast = BertWordPiece.of(en, 512).orElseThrow();
    chineseFast = BertWordPiece.of(zh, 512).orElseThrow();
  }

  @AfterAll
  static void close() {
    english.close();
    chinese.close();
  }

  private static byte[] resource(String name) throws IOException {
    try (InputStream in = BertWordPieceTest.class.getClassLoader().getResourceAsStream(name)) {
      return in.readAllBytes();
    }
  }

  /** Asserts the fast path answers and agrees with the native tokenizer. */
  private static void assertSame(BertWordPiece fast, TextTokenizer tokenizer, String text) {
    long[] ids = fast.encode(text);
    assertThat(ids).as("fast path answers for %s", printable(text)).isNotNull();
    assertThat(ids)
        .as("ids of %s", printable(text))
        .containsExactly(tokenizer.nativeIdsWithoutSpecialTokens(text));
  }

  private static String printable(String text) {
    StringBuilder out = new StringBuilder("\"");
    for (char c : text.toCharArray()) {
      out.append(c < 0x20 || c > 0x7E ? String.format("\\u%04x", (int) c) : String.valueOf(c));
    }
    return out.append('"').toString();
  }

  @Test
  void everyAcceptedCharacterIsTokenizedAsTheNativeTokenizerDoes() {
    for (boolean lowercase : new boolean[] {true, false}) {
      BertWordPiece fast = lowercase ? englishFast : chineseFast;
      TextTokenizer tokenizer = lowercase ? english : chinese;
      byte[] classes = BertWordPiece.classes(true);
      int accepted = 0;
      for (int c = 0; c < 65536; c++) {
        if (classes[c] == BertWordPiece.UNSUPPORTED) {
          continue;
        }
        accepted++;
        String ch = String.valueOf((char) c);
        assertSame(fast, tokenizer, "ab" + ch + "cD");
        assertSame(fast, tokenizer, ch + ch + "ing " + ch);
      }
      assertThat(accepted).isGreaterThan(27_000);
    }
  }

  @Test
  void randomTextsAgreeWhereverTheFastPathAnswers() {
    Random random = new Random(7);
    String alphabet =
        "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789     .,;:!?'\"()[]{}-_#$%&*+/<=>@\\^`|~"
            + "\t\n\r\u0000\u0001\u000b\u000c\u007f\u0085\u00a0\u00ad\u200b\u2014\u2019\u201c\u3000\u3001\u3002"
            + "\uff0c\uff1f\u4e2d\u6587\u68c0\u7d22\u00e9\u00fc\u0130\u03a3\u0416\u05d0\ud83d\ude00\ufffd";
    int answered = 0;
    for (int n = 0; n < 20_000; n++) {
      StringBuilder text = new StringBuilder();
      int length = random.nextInt(40);
      for (int i = 0; i < length; i++) {
        text.append(alphabet.charAt(random.nextInt(alphabet.length())));
      }
      for (BertWordPiece fast : List.of(englishFast, chineseFast)) {
        long[] ids = fast.encode(text.toString());
        if (ids != null) {
          answered++;
          TextTokenizer tokenizer = fast == englishFast ? english : chinese;
          assertThat(ids)
              .as("ids of %s", printable(text.toString()))
              .containsExactly(tokenizer.nativeIdsWithoutSpecialTokens(text.toString()));
        }
      }
    }
    assertThat(answered).isGreaterThan(10_000);
  }

  @Test
  void realQueriesInEnglishAndChineseTakeTheFastPath() {
    for (String query :
        List.of(
            "what is the capital of france?",
            "How do I bake sourdough bread at home",
            "COVID-19 vaccine side-effects (2021)",
            "who wrote \"the old man and the sea\"",
            "tenbin's LightRetriever: 1000x faster?",
            "   leading and trailing   ",
            "antidisestablishmentarianism pneumonoultramicroscopicsilicovolcanoconiosis")) {
      assertSame(englishFast, english, query);
      assertThat(english.idsWithoutSpecialTokens(query))
          .containsExactly(english.nativeIdsWithoutSpecialTokens(query));
    }
    for (String query : List.of("中国的首都是哪里？", "如何在家烤面包", "机器学习（深度学习）和检索：2024年", "北京 天气")) {
      assertSame(chineseFast, chinese, query);
    }
  }

  @Test
  void longWordsBecomeUnknownAndLongTextsAreTruncatedLikeTheNativeTokenizer() {
    assertSame(englishFast, english, "x".repeat(100) + " " + "y".repeat(101) + " ok");
    List<String> words = new ArrayList<>();
    for (int i = 0; i < 700; i++) {
      words.add("word" + i);
    }
    String text = String.join(" ", words);
    assertSame(englishFast, english, text);
    assertThat(englishFast.encode(text)).hasSize(512);
  }

  @Test
  void textsItCannotReproduceAreLeftToTheNativeTokenizer() {
    for (String text :
        List.of("café au lait", "mask [MASK] here", "Ελληνικά", "emoji \ud83d\ude00")) {
      assertThat(englishFast.encode(text)).as(text).isNull();
      assertThat(english.idsWithoutSpecialTokens(text))
          .containsExactly(english.nativeIdsWithoutSpecialTokens(text));
    }
  }

  @Test
  void otherTokenizerPipelinesHaveNoFastPath() {
    assertThat(BertWordPiece.of(TinyOnnxModels.wordLevelTokenizer(List.of("apple")), 32)).isEmpty();
  }
}
