package dev.tenbin.scoring.text;

import static org.assertj.core.api.Assertions.assertThat;

import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.Chars;
import net.jqwik.api.constraints.StringLength;

/**
 * The word count behind {@code avg_query_tokens} and {@code avg_document_tokens}: the split's
 * parts.
 */
class WhitespaceSplitTest {
  /** The definition the count keeps: pieces between ASCII whitespace runs of the stripped text. */
  private static int bySplit(String text) {
    String stripped = text.strip();
    return stripped.isEmpty() ? 0 : stripped.split("\\s+").length;
  }

  @Property(tries = 2_000)
  void countsAsTheStrippedTextSplitOnWhitespaceRuns(
      @ForAll
          @StringLength(max = 24)
          @Chars({
            ' ', '\t', '\n', '\u000B', '\f', '\r', '\u001C', '\u00A0', '\u2003', '\u3000', 'a', 'b',
            '\u0001', '語'
          })
          String text) {
    assertThat(WhitespaceSplit.count(text))
        .as("%s", text.codePoints().boxed().toList())
        .isEqualTo(bySplit(text));
  }

  @Example
  void blankTextsHaveNoWordsAndSeparatorsInsideAWordAreNotAsciiWhitespace() {
    assertThat(WhitespaceSplit.count("")).isZero();
    assertThat(WhitespaceSplit.count(" \t\u2003\n")).isZero();
    assertThat(WhitespaceSplit.count("  the quick\t\tbrown\nfox ")).isEqualTo(4);
    // a no-break space and an em space separate nothing for the count; a leading em space is
    // stripped
    assertThat(WhitespaceSplit.count("\u2003a\u00A0b c\u2003d")).isEqualTo(2);
  }
}
