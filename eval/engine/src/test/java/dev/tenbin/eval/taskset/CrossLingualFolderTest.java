package dev.tenbin.eval.taskset;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tenbin.core.InvalidInputException;
import dev.tenbin.scoring.beir.BeirDataset;
import dev.tenbin.scoring.beir.BeirDatasetReader;
import dev.tenbin.scoring.beir.DatasetFingerprint;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The queries of one parallel collection against the corpus, qrels and spans of another. */
class CrossLingualFolderTest {
  @TempDir Path tmp;

  private Path folder(String name, String question) throws Exception {
    Path dir = tmp.resolve(name);
    Files.createDirectories(dir.resolve("qrels"));
    Files.writeString(
        dir.resolve("corpus.jsonl"), "{\"_id\":\"a00\",\"text\":\"" + name + " article text\"}\n");
    Files.writeString(
        dir.resolve("queries.jsonl"), "{\"_id\":\"q1\",\"text\":\"" + question + "\"}\n");
    Files.writeString(dir.resolve("qrels/test.tsv"), "q1\ta00\t1\n");
    Files.writeString(dir.resolve("qrels/spans.tsv"), "q1\ta00\t0\t2\n");
    return dir;
  }

  @Test
  void theOtherFoldersQueriesMeetThisCorpusQrelsAndSpansUnderTheirOwnIdentity() throws Exception {
    Path english = folder("en-long", "what is it");
    Path german = folder("de-long", "was ist es");
    Path cross = CrossLingualFolder.assemble(english, german, tmp.resolve("cache"));

    BeirDataset data = BeirDatasetReader.read(cross);
    assertThat(data.name()).isEqualTo("en-long__q-de-long");
    assertThat(data.queries()).containsEntry("q1", "was ist es");
    assertThat(data.corpus().head(1).getFirst().text()).isEqualTo("en-long article text");
    assertThat(data.spans().span("q1")).isPresent();
    assertThat(DatasetFingerprint.of(cross))
        .isNotEqualTo(DatasetFingerprint.of(english))
        .isEqualTo(
            DatasetFingerprint.of(
                CrossLingualFolder.assemble(
                    english, german.resolve("queries.jsonl"), tmp.resolve("cache"))));
  }

  @Test
  void aFolderWithoutQueriesIsRefusedNamingTheFlag() throws Exception {
    Path english = folder("en-long", "what is it");
    assertThatThrownBy(
            () -> CrossLingualFolder.assemble(english, tmp.resolve("none"), tmp.resolve("cache")))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("no queries.jsonl");
  }
}
