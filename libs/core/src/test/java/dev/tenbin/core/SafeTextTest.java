package dev.tenbin.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class SafeTextTest {
  @Test
  void oneLineEscapesEveryLineBreakAndControlCharacterAndCutsNothing() {
    String value = "a\nb\rc\td\u0000e\u0085f\u2028g\u2029h" + "x".repeat(10_000);

    String line = SafeText.oneLine(value);

    assertThat(line)
        .startsWith("a\\nb\\rc\\td\\u0000e\\u0085f\\u2028g\\u2029h")
        .hasSize(value.length() + 3 + 4 * 5)
        .doesNotContain("\n", "\r", "\u2028");
    assertThat(SafeText.oneLine("plain")).isSameAs("plain");
    assertThat(SafeText.oneLine(null)).isNull();
    assertThat(SafeText.quote("x\u2028y")).isEqualTo("'x\\u2028y'");
  }

  @Test
  void shortTextIsLeftAlone() {
    assertThat(SafeText.message("no collection 'docs'")).isEqualTo("no collection 'docs'");
    assertThat(SafeText.message(null)).isNull();
  }

  @Test
  void longValuesAreCutToTheirLimitWithTheOriginalLength() {
    String cut = SafeText.message("id '" + "a".repeat(40_000) + "' is too long");
    assertThat(cut).startsWith("id 'aaa").endsWith("\u2026(40002 chars) is too long");
    String value = cut.substring(3, cut.indexOf(' ', 3));
    assertThat(value).hasSize(SafeText.MAX_VALUE_CHARS);
  }

  @Test
  void wholeMessagesStayWithinTheByteBudgetForMultiByteText() {
    String chinese = "\u6587\u4ef6 ".repeat(5_000);
    String cut = SafeText.message(chinese);
    assertThat(cut.getBytes(StandardCharsets.UTF_8).length)
        .isLessThanOrEqualTo(SafeText.MAX_MESSAGE_BYTES);
    assertThat(cut).endsWith("\u2026(15000 chars)");
  }

  @Test
  void surrogatePairsAreNeverSplit() {
    String emoji = "\uD83D\uDE00".repeat(1_000);
    String cut = SafeText.message(emoji);
    assertThat(cut.getBytes(StandardCharsets.UTF_8).length)
        .isLessThanOrEqualTo(SafeText.MAX_MESSAGE_BYTES);
    assertThat(cut.codePoints().filter(cp -> cp >= 0xD800 && cp <= 0xDFFF).count()).isZero();
  }

  @Test
  void cuttingIsIdempotent() {
    for (String text :
        new String[] {
          "x".repeat(100_000), "word ".repeat(10_000), "a".repeat(300) + " " + "b".repeat(5_000)
        }) {
      String once = SafeText.message(text);
      assertThat(SafeText.message(once)).isEqualTo(once);
      assertThat(SafeText.needsCut(once, SafeText.MAX_MESSAGE_BYTES)).isFalse();
    }
  }

  @Test
  void aQuotedValueHasItsControlCharactersEscapedSoItCannotForgeLogLines() {
    assertThat(SafeText.quote("a\nb\r\tc\u0007d")).isEqualTo("'a\\nb\\r\\tc\\u0007d'");
    assertThat(SafeText.quote(null)).isEqualTo("''");
  }

  @Test
  void aLongQuotedValueIsCutWithACountOfWhatWasLeftOut() {
    String quoted = SafeText.quote("x".repeat(100_000));
    assertThat(quoted)
        .startsWith("'" + "x".repeat(SafeText.MAX_QUOTED_CHARS) + "\u2026 (")
        .endsWith(" (" + (100_000 - SafeText.MAX_QUOTED_CHARS) + " more characters)'");
    assertThat(SafeText.escaped("abcdef", 3)).isEqualTo("abc\u2026 (3 more characters)");
    assertThat(SafeText.escaped("abc", 3)).isEqualTo("abc");
  }
}
