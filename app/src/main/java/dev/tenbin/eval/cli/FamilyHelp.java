package dev.tenbin.eval.cli;

import dev.tenbin.eval.family.Families;
import java.util.ListResourceBundle;

/**
 * Help texts generated from the family registry, read by picocli as the resource bundle of the
 * commands that name retrievers (options with a {@code descriptionKey}), so a new family appears in
 * {@code --help} without editing any command.
 */
public final class FamilyHelp extends ListResourceBundle {
  @Override
  protected Object[][] getContents() {
    return new Object[][] {
      {
        "retriever",
        "Retriever(s) to evaluate, repeatable or comma-separated: "
            + Families.help()
            + ". Default ${DEFAULT-VALUE}."
      },
      {
        "rerank",
        "Rerank the stored candidate set with MODEL: a cross-encoder id or "
            + Families.rerankUsages()
            + "."
      },
    };
  }
}
