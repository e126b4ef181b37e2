package dev.tenbin.eval.positions;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class PositionsTextTest {

  @Test
  void theLegendExplainsEveryMarkOfTheProfileAndEveryColumn() {
    String legend = PositionsText.legend(5);
    assertThat(legend)
        .contains("0-9", "* for 1.0", "· under 5 queries", "psi:", "slope:", "kendall", "ref r:");
    assertThat(legend.lines()).allSatisfy(line -> assertThat(line).hasSizeLessThanOrEqualTo(100));
  }
}
