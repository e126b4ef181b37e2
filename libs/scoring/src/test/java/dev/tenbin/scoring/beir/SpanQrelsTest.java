package dev.tenbin.scoring.beir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Span qrels: read, validated line by line, the earliest span kept, part of the identity. */
class SpanQrelsTest {
  @TempDir Path tmp;

  /** d1's text is 40 characters; d2's is "日本語のテキスト" (8 characters, 24 UTF-8 bytes). */
  private Path folder(String spans) throws Exception {
    Files.writeString(
        tmp.resolve("corpus.jsonl"),
        "{\"_id\":\"d1\",\"title\":\"T\",\"text\":\"0123456789012345678901234567890123456789\"}\n"
            + "{\"_id\":\"d2\",\"text\":\"日本語のテキスト\"}\n"
            + "{\"_id\":\"d3\",\"text\":\"other\"}\n");
    Files.writeString(
        tmp.resolve("queries.jsonl"),
        "{\"_id\":\"q1\",\"text\":\"one\"}\n{\"_id\":\"q2\",\"text\":\"two\"}\n");
    Path qrels = Files.createDirectories(tmp.resolve("qrels"));
    Files.writeString(
        qrels.resolve("test.tsv"), "query-id\tcorpus-id\tscore\nq1\td1\t1\nq2\td2\t1\nq2\td3\t0\n");
    if (spans != null) {
      Files.writeString(qrels.resolve("spans.tsv"), spans);
    }
    return tmp;
  }

  @Test
  void spansAreReadWithRelativePositionAndBinFromTheCentre() throws Exception {
    BeirDataset data =
        BeirDatasetReader.read(
            folder("query-id\tcorpus-id\tstart\tend\nq1\td1\t10\t12\nq2\td2\t6\t8\n"));

    AnswerSpan first = data.spans().span("q1").orElseThrow();
    assertThat(first).isEqualTo(new AnswerSpan("d1", 10, 12, 40));
    assertThat(first.relativePosition()).isEqualTo(11.0 / 40); // centre 11 of 40 characters
    assertThat(first.positionBin()).isEqualTo(5); // floor(20 * 0.275)
    AnswerSpan last = data.spans().span("q2").orElseThrow();
    assertThat(last.documentLength()).as("code points, not bytes or UTF-16 units").isEqualTo(8);
    assertThat(last.relativePosition()).isEqualTo(7.0 / 8);
    assertThat(last.positionBin()).isEqualTo(17);
  }

  @Test
  void aSpanEndingAtTheLastCharacterFallsInTheLastBin() {
    assertThat(new AnswerSpan("d", 40, 40, 40).positionBin()).isEqualTo(19);
    assertThat(new AnswerSpan("d", 0, 0, 40).positionBin()).isZero();
    assertThat(new AnswerSpan("d", 0, 2, 40).positionBin()).isZero();
    assertThat(new AnswerSpan("d", 3, 3, 60).positionBin()).isEqualTo(1); // exactly 0.05
  }

  @Test
  void aQueryWithSeveralSpansKeepsItsEarliest() throws Exception {
    BeirDataset data =
        BeirDatasetReader.read(folder("q1\td1\t30\t32\nq1\td1\t4\t9\nq1\td1\t4\t6\n"));
    assertThat(data.spans().span("q1")).contains(new AnswerSpan("d1", 4, 6, 40));
    assertThat(data.spans().span("q2")).isEmpty();
  }

  @Test
  void aFolderWithoutSpansHasNoneAndKeepsItsFingerprint() throws Exception {
    Path dir = folder(null);
    String before = DatasetFingerprint.of(dir);
    assertThat(BeirDatasetReader.read(dir).spans().isEmpty()).isTrue();

    Files.writeString(dir.resolve("qrels/spans.tsv"), "q1\td1\t0\t1\n");
    String withSpans = DatasetFingerprint.of(dir);
    Files.writeString(dir.resolve("qrels/spans.tsv"), "q1\td1\t0\t2\n");
    assertThat(withSpans).isNotEqualTo(before).isNotEqualTo(DatasetFingerprint.of(dir));
    Files.delete(dir.resolve("qrels/spans.tsv"));
    assertThat(DatasetFingerprint.of(dir)).isEqualTo(before);
  }

  @Test
  void eachBadLineIsRefusedNamingTheLineAndTheProblem() throws Exception {
    assertRefused("q1\td1\t10\n", "spans.tsv line 1: expected 4 tab-separated columns");
    assertRefused("q1\td1\t0\t2\nq9\td1\t0\t1\n", "line 2: query 'q9' is not in queries.jsonl");
    assertRefused("q1\td9\t0\t1\n", "line 1: document 'd9' is not in corpus.jsonl");
    assertRefused("q2\td3\t0\t1\n", "line 1: document 'd3' is not judged relevant for query 'q2'");
    assertRefused("q1\td1\tten\t12\n", "line 1: start offset 'ten' is not an integer");
    assertRefused("q1\td1\t-1\t2\n", "line 1: start offset -1 is negative");
    assertRefused(
        "q1\td1\t5\t41\n", "line 1: span [5, 41) is outside document 'd1' (40 characters");
    assertRefused("q2\td2\t3\t9\n", "outside document 'd2' (8 characters");
    assertRefused("q1\td1\t12\t10\n", "line 1: span [12, 10) is outside");
  }

  private void assertRefused(String spans, String message) throws Exception {
    Path dir = folder(spans);
    assertThatThrownBy(() -> BeirDatasetReader.read(dir))
        .isInstanceOf(DatasetException.class)
        .hasMessageContaining(message);
  }
}
