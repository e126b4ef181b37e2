package dev.tenbin.bench.bm25;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tenbin.scoring.metrics.Qrels;
import dev.tenbin.scoring.metrics.RunOrder;
import dev.tenbin.scoring.metrics.ScoredDoc;
import dev.tenbin.scoring.trec.QrelsReader;
import dev.tenbin.scoring.trec.TrecRunReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SyntheticRunFilesTest {
  @TempDir Path tmp;

  @Test
  void theSameSeedWritesTheSameBytesAndAnotherSeedOtherBytes() throws Exception {
    SyntheticRunFiles.write(tmp.resolve("a"), 120, 50, 7);
    SyntheticRunFiles.write(tmp.resolve("b"), 120, 50, 7);
    SyntheticRunFiles.write(tmp.resolve("c"), 120, 50, 8);
    for (String file : List.of(SyntheticRunFiles.RUN_FILE, SyntheticRunFiles.QRELS_FILE)) {
      byte[] a = Files.readAllBytes(tmp.resolve("a").resolve(file));
      assertThat(a)
          .as(file)
          .isNotEmpty()
          .isEqualTo(Files.readAllBytes(tmp.resolve("b").resolve(file)));
      assertThat(a).as(file).isNotEqualTo(Files.readAllBytes(tmp.resolve("c").resolve(file)));
    }
  }

  @Test
  void theFilesHoldGradedJudgmentsTiesAbsentAndUnjudgedQueries() throws Exception {
    SyntheticRunFiles.Summary summary = SyntheticRunFiles.write(tmp, 100, 40, 7);
    Map<String, List<ScoredDoc>> run = TrecRunReader.read(tmp.resolve(SyntheticRunFiles.RUN_FILE));
    Qrels qrels = QrelsReader.read(tmp.resolve(SyntheticRunFiles.QRELS_FILE));

    assertThat(qrels.queryIds()).hasSize(100);
    // q19, q39, ... are judged but absent; u0 and u1 are retrieved but not judged.
    assertThat(run).doesNotContainKey("q19").containsKeys("q0", "q18", "u0", "u1");
    assertThat(qrels.isJudged("u0")).isFalse();
    assertThat(summary.runQueries()).isEqualTo(run.size()).isEqualTo(100 - 5 + 2);
    assertThat(summary.runLines()).isEqualTo(40L * run.size());
    assertThat(summary.judgedQueries()).isEqualTo(100);

    Set<Integer> grades = new HashSet<>();
    boolean tiesFound = false;
    boolean unretrievedRelevant = false;
    for (String query : qrels.queryIds()) {
      grades.addAll(qrels.judgments(query).values());
      List<ScoredDoc> ranking = run.getOrDefault(query, List.of());
      Set<String> retrieved = new HashSet<>();
      ranking.forEach(doc -> retrieved.add(doc.docId()));
      assertThat(retrieved).as("documents of %s are unique", query).hasSameSizeAs(ranking);
      assertThat(RunOrder.AS_GIVEN.apply(ranking))
          .as("file order is score order")
          .isSortedAccordingTo((x, y) -> Double.compare(y.score(), x.score()));
      for (int i = 1; i < ranking.size(); i++) {
        tiesFound |= ranking.get(i).score() == ranking.get(i - 1).score();
      }
      unretrievedRelevant |=
          qrels.judgments(query).entrySet().stream()
              .anyMatch(e -> e.getValue() > 0 && !retrieved.contains(e.getKey()));
    }
    assertThat(grades).containsExactlyInAnyOrder(0, 1, 2, 3);
    assertThat(tiesFound).isTrue();
    assertThat(unretrievedRelevant).isTrue();
    // q24, q49, ... are judged with grade 0 only.
    assertThat(qrels.relevantCount("q24")).isZero();
    assertThat(qrels.judgments("q24")).isNotEmpty();
  }

  @Test
  void nonPositiveSizesAreRefused() {
    assertThatThrownBy(() -> SyntheticRunFiles.write(tmp, 0, 10, 7))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("positive");
  }
}
