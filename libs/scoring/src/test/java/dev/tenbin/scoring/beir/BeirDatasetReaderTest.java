package dev.tenbin.scoring.beir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What a BEIR folder must hold; each refusal names the file and line. */
class BeirDatasetReaderTest {
  @TempDir Path tmp;

  private Path folder(String corpus) throws Exception {
    Files.writeString(tmp.resolve("corpus.jsonl"), corpus);
    Files.writeString(tmp.resolve("queries.jsonl"), "{\"_id\":\"q1\",\"text\":\"apple?\"}\n");
    Files.writeString(
        Files.createDirectories(tmp.resolve("qrels")).resolve("test.tsv"),
        "query-id\tcorpus-id\tscore\nq1\td1\t1\n");
    return tmp;
  }

  @Test
  void readsOneDocumentPerLineWithOptionalTitles() throws Exception {
    BeirDataset dataset =
        BeirDatasetReader.read(
            folder(
                "{\"_id\":\"d1\",\"title\":\"A\",\"text\":\"apple\"}\r\n\n{\"_id\":\"d2\",\"text\":\"b\"}"));
    assertThat(dataset.corpus())
        .containsExactly(new CorpusDocument("d1", "A", "apple"), new CorpusDocument("d2", "", "b"));
    assertThat(dataset.evaluatedQueryIds()).containsExactly("q1");
  }

  @Test
  void dataAfterTheObjectOfALineIsAnErrorNotSilentlyDropped() throws Exception {
    Path dir =
        folder(
            "{\"_id\":\"d1\",\"text\":\"apple\"}\n{\"_id\":\"d2\",\"text\":\"b\"} {\"_id\":\"d3\",\"text\":\"c\"}\n");
    assertThatThrownBy(() -> BeirDatasetReader.read(dir))
        .isInstanceOf(DatasetException.class)
        .hasMessageContaining("corpus.jsonl line 2: not valid JSON");
  }

  @Test
  void aKeyGivenTwiceIsAnErrorNotTheLastOneWins() throws Exception {
    Path dir = folder("{\"_id\":\"d1\",\"_id\":\"d9\",\"text\":\"apple\"}\n");
    assertThatThrownBy(() -> BeirDatasetReader.read(dir))
        .isInstanceOf(DatasetException.class)
        .hasMessageContaining("line 1");
  }

  @Test
  void idsThatRunsAndQrelsCannotNameAreRefused() throws Exception {
    Path dir = folder("{\"_id\":\"d1\",\"text\":\"a\"}\n{\"_id\":\"d 2\",\"text\":\"b\"}\n");
    assertThatThrownBy(() -> BeirDatasetReader.read(dir))
        .isInstanceOf(DatasetException.class)
        .hasMessageContaining("line 2: \"_id\" holds whitespace");
  }

  @Test
  void aTitleOrTextThatIsNotAStringIsRefusedRatherThanReadAsEmpty() throws Exception {
    Path dir = folder("{\"_id\":\"d1\",\"title\":{\"en\":\"A\"},\"text\":\"a\"}\n");
    assertThatThrownBy(() -> BeirDatasetReader.read(dir))
        .isInstanceOf(DatasetException.class)
        .hasMessageContaining("\"title\" must be a string");
  }
}
