package dev.tenbin.encoder.onnx;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenbin.encoder.testing.TinyModels;
import dev.tenbin.encoder.testing.TinyOnnxModels;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The tokenizer adds [CLS]/[SEP], truncates at the max length and says when it did. */
class TextTokenizerTest {
  @Test
  void specialTokensAreAddedAndTruncationIsReportedOnlyWhenTokensWereCut() {
    try (TextTokenizer tokenizer = new TextTokenizer(TinyOnnxModels.wordLevelTokenizer(TinyModels.WORDS), 8)) {
      String fits = String.join(" ", Collections.nCopies(6, "apple"));
      String over = String.join(" ", Collections.nCopies(7, "apple"));
      TokenizedBatch batch = tokenizer.encode(List.of("Banana", fits, over));
      assertThat(batch.ids()[0]).containsExactly(2, 5, 3);
      assertThat(batch.ids()[1]).hasSize(8).startsWith(2).endsWith(3);
      assertThat(batch.ids()[2]).hasSize(8).startsWith(2).endsWith(3);
      assertThat(batch.truncated()).containsExactly(false, false, true);
      assertThat(tokenizer.idsWithoutSpecialTokens("apple banana")).containsExactly(4, 5);
      assertThat(tokenizer.hasFastPath()).isFalse();
    }
  }
}
