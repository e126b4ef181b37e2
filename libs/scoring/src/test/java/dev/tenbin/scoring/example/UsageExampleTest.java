package dev.tenbin.scoring.example;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.tenbin.scoring.metrics.Evaluation;
import dev.tenbin.scoring.metrics.Qrels;
import dev.tenbin.scoring.metrics.RankingEvaluator;
import dev.tenbin.scoring.metrics.RunOrder;
import dev.tenbin.scoring.metrics.ScoredDoc;
import dev.tenbin.scoring.trec.QrelsReader;
import dev.tenbin.scoring.trec.TrecRunReader;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The library README's example, run on a run whose values are worked out by hand; and the README's
 * code block is this test's, line for line, so the two cannot drift apart.
 */
class UsageExampleTest {
  private static final double LOG2_3 = Math.log(3) / Math.log(2);

  @TempDir Path folder;

  @Test
  void theReadmeExampleGivesTheValuesWorkedOutByHand() throws IOException {
    // q1: d1 grade 2, d2 grade 1; q2: d3 grade 1. The run ranks d2, d1, d9 for q1 and ties d8 and
    // d3
    // for q2, which trec_eval orders by docno descending: d8 first.
    Files.writeString(folder.resolve("qrels.test.tsv"), "q1\td1\t2\nq1\td2\t1\nq2\td3\t1\n");
    Files.writeString(
        folder.resolve("run.trec"),
        "q1 Q0 d2 1 3.0 t\nq1 Q0 d1 2 2.0 t\nq1 Q0 d9 3 1.0 t\nq2 Q0 d3 1 5.0 t\nq2 Q0 d8 2 5.0 t\n");
    double[] values = readmeExample(folder);

    // nDCG with trec_eval's gains (the grade) and discounts (log2 of rank + 1).
    double q1 = (1 + 2 / LOG2_3) / (2 + 1 / LOG2_3);
    double q2 = 1 / LOG2_3;
    assertThat(values[0]).isCloseTo((q1 + q2) / 2, within(1e-12));
    // Tied, d3 is first in one order of two and second in the other.
    double q2TieAware = (1 + 1 / LOG2_3) / 2;
    assertThat(values[1]).isCloseTo((q1 + q2TieAware) / 2, within(1e-12));
  }

  /** The README's example (between the markers); {@code folder} holds its two files. */
  private static double[] readmeExample(Path folder) {
    // README begin
    Qrels qrels = QrelsReader.read(folder.resolve("qrels.test.tsv"));
    Map<String, List<ScoredDoc>> run = TrecRunReader.read(folder.resolve("run.trec"));
    Evaluation evaluation =
        RankingEvaluator.standard().evaluate(qrels, run, qrels.queryIds(), RunOrder.TREC_EVAL);
    double ndcg10 = evaluation.means().get("ndcg@10"); // = trec_eval -c -m ndcg_cut.10
    double tieAware = evaluation.tieAware().get("ndcg@10").expected(); // the mean over tie orders
    // README end
    return new double[] {ndcg10, tieAware};
  }

  @Test
  void theReadmeShowsThisTestsExample() throws IOException {
    String readme = Files.readString(Path.of("README.md"));
    Matcher block = Pattern.compile("```java\n(.*?)```", Pattern.DOTALL).matcher(readme);
    assertThat(block.find()).as("a java block in README.md").isTrue();
    String source =
        Files.readString(Path.of("src/test/java/dev/tenbin/scoring/example/UsageExampleTest.java"));
    String example =
        source.substring(
            source.indexOf("// README begin\n") + "// README begin\n".length(),
            source.indexOf("    // README end"));
    String unindented = example.replaceAll("(?m)^    ", "");
    assertThat(block.group(1)).isEqualTo(unindented);
  }
}
