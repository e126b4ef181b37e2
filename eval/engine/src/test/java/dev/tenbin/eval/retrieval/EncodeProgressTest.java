package dev.tenbin.eval.retrieval;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;

class EncodeProgressTest {

  private static String print(boolean terminal) {
    StringWriter text = new StringWriter();
    EncodeProgress progress = EncodeProgress.printingTo(new PrintWriter(text), terminal);
    progress.update("encoding queries", 0, 1000);
    progress.update("encoding queries", 512, 1000);
    progress.update("encoding queries", 1000, 1000);
    progress.update("encoding queries", 1000, 1000); // told again: not printed again
    return text.toString();
  }

  @Test
  void aFileOrPipeGetsOnlyTheFinishedLine() {
    assertThat(print(false))
        .isEqualTo("tenbin: encoding queries: 1000/1000" + System.lineSeparator());
  }

  @Test
  void aTerminalGetsUpdatesInPlaceAndOneLineEnd() {
    assertThat(print(true))
        .isEqualTo(
            "\rtenbin: encoding queries: 0/1000\rtenbin: encoding queries: 512/1000"
                + "\rtenbin: encoding queries: 1000/1000"
                + System.lineSeparator());
  }
}
