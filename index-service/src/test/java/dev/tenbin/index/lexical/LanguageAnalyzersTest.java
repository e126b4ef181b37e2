package dev.tenbin.index.lexical;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tenbin.core.InvalidInputException;
import java.util.List;
import org.junit.jupiter.api.Test;

class LanguageAnalyzersTest {
  private static List<String> terms(String language, String text) {
    return List.copyOf(
        BagOfWordsQuery.termCounts(LanguageAnalyzers.forLanguage(language), "contents", text)
            .keySet());
  }

  @Test
  void englishStemsWithPorterAndDropsLuceneStopWords() {
    assertThat(terms("en", "The runners were running to the dog's houses"))
        .containsExactly("runner", "were", "run", "dog", "hous");
  }

  @Test
  void emptyLanguageMeansEnglishAndCodesAreCaseInsensitive() {
    assertThat(LanguageAnalyzers.normalize("")).isEqualTo("en");
    assertThat(LanguageAnalyzers.normalize("DE")).isEqualTo("de");
    assertThat(LanguageAnalyzers.normalize("pt_BR")).isEqualTo("pt-br");
    assertThat(LanguageAnalyzers.normalize("en-US")).isEqualTo("en");
  }

  @Test
  void germanUsesLuceneGermanAnalysis() {
    assertThat(terms("de", "Die Häuser und die Bäume")).containsExactly("haus", "baum");
  }

  @Test
  void chineseIsSegmentedIntoWordsBySmartcn() {
    assertThat(terms("zh", "我是中国人")).contains("中国");
  }

  @Test
  void japaneseUsesKuromojiAndKoreanUsesNori() {
    assertThat(terms("ja", "東京都に住んでいます")).contains("東京");
    // Nori splits the compound 한국어 (Korean language) and drops the particle 를, the verb suffix 하
    // and the ending ㅂ니다.
    assertThat(terms("ko", "한국어를 공부합니다")).containsExactly("한국", "어", "공부");
  }

  @Test
  void thaiIsSegmentedByIcuDictionary() {
    // Written without spaces: ภาษา (language) ไทย (Thai) ง่าย (easy) นิด (a little) เดียว (only).
    assertThat(terms("th", "ภาษาไทยง่ายนิดเดียว"))
        .containsExactly("ภาษา", "ไทย", "ง่าย", "นิด", "เดียว");
  }

  @Test
  void languagesWithoutDedicatedAnalyzerGetTheUnicodeDefault() {
    assertThat(LanguageAnalyzers.hasDedicatedAnalyzer("sw")).isFalse();
    assertThat(terms("sw", "Habari ya ASUBUHI")).containsExactly("habari", "ya", "asubuhi");
  }

  @Test
  void unknownLanguageIsRejectedNamingTheField() {
    assertThatThrownBy(() -> LanguageAnalyzers.forLanguage("klingon"))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("unknown language 'klingon'")
        .extracting(e -> ((InvalidInputException) e).field())
        .isEqualTo("spec.language");
  }

  @Test
  void repeatedQueryTermsAreCounted() {
    assertThat(BagOfWordsQuery.termCounts(LanguageAnalyzers.forLanguage("en"), "f", "cat cats dog"))
        .containsEntry("cat", 2)
        .containsEntry("dog", 1);
  }
}
