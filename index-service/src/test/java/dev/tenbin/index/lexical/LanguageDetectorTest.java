package dev.tenbin.index.lexical;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class LanguageDetectorTest {
  @Test
  void latinScriptTextIsAttributedByStopWordCoverage() {
    assertThat(
            LanguageDetector.detect("The defense of the team was one of the best in the league."))
        .isEqualTo("en");
    assertThat(
            LanguageDetector.detect(
                "Die Verteidigung der Mannschaft war eine der besten in der Liga, und sie hat nur wenige Punkte abgegeben."))
        .isEqualTo("de");
    assertThat(
            LanguageDetector.detect(
                "La defensa del equipo fue una de las mejores de la liga y no permitió muchos puntos."))
        .isEqualTo("es");
  }

  @Test
  void otherScriptsDecideByScript() {
    assertThat(LanguageDetector.detect("حمزة بن عبد المطلب صحابي من صحابة رسول الإسلام"))
        .isEqualTo("ar");
    assertThat(LanguageDetector.detect("黑豹队的防守只丢了308分，在联赛中排名第六")).isEqualTo("zh");
    assertThat(LanguageDetector.detect("東京都に住んでいます。日本語を話します。")).isEqualTo("ja");
    assertThat(LanguageDetector.detect("한국어를 공부합니다")).isEqualTo("ko");
    assertThat(LanguageDetector.detect("Москва — столица России")).isEqualTo("ru");
  }

  @Test
  void textWithoutLettersFallsBackToEnglish() {
    assertThat(LanguageDetector.detect("12345 !!!")).isEqualTo("en");
  }
}
