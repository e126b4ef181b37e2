package dev.tenbin.eval.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenbin.eval.family.Families;
import dev.tenbin.eval.plan.RetrievalFamily;
import org.junit.jupiter.api.Test;

class FamilyHelpTest {
  @Test
  void helpTextsListEveryRegisteredFamily() {
    String retrieverHelp = new FamilyHelp().getString("retriever");
    for (RetrievalFamily family : Families.retrieval()) {
      assertThat(retrieverHelp).contains(family.usage() + " (" + family.description() + ")");
    }
  }
}
