package dev.tenbin.eval.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenbin.eval.family.Families;
import dev.tenbin.eval.plan.RetrievalFamily;
import org.junit.jupiter.api.Test;

class EvalHelpTest {
  @Test
  void evalHelpListsEveryRegisteredRetrieverAndReranker() {
    CliRunner result = CliRunner.run("eval", "--help");
    assertThat(result.exitCode()).as(result.err()).isZero();
    // Help wraps lines anywhere: compare without whitespace.
    String help = result.out().replaceAll("\\s+", "");
    for (RetrievalFamily family : Families.retrieval()) {
      assertThat(help)
          .contains((family.usage() + " (" + family.description() + ")").replaceAll("\\s+", ""));
    }
    assertThat(help)
        .contains("Defaultbm25.")
        .contains("across-encoderidordense:MODEL,sparse:MODEL,multivector:MODEL");
  }
}
