package dev.tenbin.scoring.trec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tenbin.scoring.metrics.Qrels;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class QrelsReaderTest {
  @TempDir Path tmp;

  @Test
  void readsTrecQrelsWithGradesAndKeepsAllZeroQueriesAsJudged() throws Exception {
    Path file =
        Files.writeString(
            tmp.resolve("qrels.trec"), "q1 0 d1 2\nq1 0 d2 0\n\nq2\t0\td3  -1\nq3 Q0 d4 1\n");
    Qrels qrels = QrelsReader.read(file);
    assertThat(qrels.queryIds()).containsExactly("q1", "q2", "q3");
    assertThat(qrels.judgments("q1")).containsExactly(Map.entry("d1", 2), Map.entry("d2", 0));
    assertThat(qrels.isJudged("q2")).isTrue();
    assertThat(qrels.relevantCount("q2")).isZero();
    assertThat(qrels.grade("q3", "d4")).isEqualTo(1);
    assertThat(qrels.grade("q3", "unjudged")).isZero();
  }

  @Test
  void readsBeirTsvWithOrWithoutItsHeader() throws Exception {
    Path withHeader =
        Files.writeString(
            tmp.resolve("test.tsv"),
            "query-id\tcorpus-id\tscore\nq1\td1\t2\nq1\td2\t0\nq2\td3\t1\n");
    Path without = Files.writeString(tmp.resolve("bare.tsv"), "q1\td1\t2\nq1\td2\t0\nq2\td3\t1\n");
    for (Path file : new Path[] {withHeader, without}) {
      Qrels qrels = QrelsReader.read(file);
      assertThat(qrels.queryIds()).as(file.toString()).containsExactly("q1", "q2");
      assertThat(qrels.grade("q1", "d1")).isEqualTo(2);
      assertThat(qrels.relevantCount("q1")).isEqualTo(1);
    }
  }

  @Test
  void aRepeatedJudgmentKeepsTheLastGrade() throws Exception {
    Path file = Files.writeString(tmp.resolve("qrels"), "q1 0 d1 0\nq1 0 d1 3\n");
    assertThat(QrelsReader.read(file).grade("q1", "d1")).isEqualTo(3);
  }

  @Test
  void aLineWithTheWrongColumnCountIsNamedByFileAndLine() throws Exception {
    Path file = Files.writeString(tmp.resolve("bad.qrels"), "q1 0 d1 1\nq1 0 d2\n");
    assertThatThrownBy(() -> QrelsReader.read(file))
        .isInstanceOf(InputFileException.class)
        .hasMessageContaining("bad.qrels line 2")
        .hasMessageContaining("expected 4 columns")
        .satisfies(e -> assertThat(((InputFileException) e).line()).isEqualTo(2));
  }

  @Test
  void aGradeThatIsNotAnIntegerIsNamedByFileAndLine() throws Exception {
    Path file = Files.writeString(tmp.resolve("bad.qrels"), "q1 0 d1 1\n\nq1 0 d2 high\n");
    assertThatThrownBy(() -> QrelsReader.read(file))
        .hasMessageContaining("bad.qrels line 3")
        .hasMessageContaining("'high'");
  }

  @Test
  void aRunFileGivenAsQrelsIsRefusedAtItsFirstLine() throws Exception {
    Path file = Files.writeString(tmp.resolve("run-not-qrels"), "q1 Q0 d1 1 0.5 tag\n");
    assertThatThrownBy(() -> QrelsReader.read(file))
        .hasMessageContaining("line 1")
        .hasMessageContaining("got 6");
  }

  @Test
  void missingAndEmptyFilesAreRefusedByName() throws Exception {
    assertThatThrownBy(() -> QrelsReader.read(tmp.resolve("absent.qrels")))
        .isInstanceOf(InputFileException.class)
        .hasMessageContaining("qrels file not found")
        .hasMessageContaining("absent.qrels");
    Path empty = Files.writeString(tmp.resolve("empty.qrels"), "\n");
    assertThatThrownBy(() -> QrelsReader.read(empty)).hasMessageContaining("no judgments");
  }

  @Test
  void idsWithControlCharactersAreRefusedNamingTheLine() throws Exception {
    Path file = Files.writeString(tmp.resolve("qrels.trec"), "q1 0 d1 1\nq\u0011 0 d2 0\n");
    assertThatThrownBy(() -> QrelsReader.read(file))
        .isInstanceOf(InputFileException.class)
        .hasMessageContaining("line 2: query id holds a control character");
  }
}
