package dev.tenbin.scoring.beir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A corpus read from a folder is walked from its file each time, never held whole. */
class CorpusWalkTest {
  @TempDir Path tmp;

  private static String corpus(int documents) {
    StringBuilder text = new StringBuilder();
    for (int d = 0; d < documents; d++) {
      text.append("{\"_id\":\"d").append(d).append("\",\"text\":\"word").append(d).append("\"}\n");
    }
    return text.toString();
  }

  private Path folder(String corpus, boolean gzip) throws Exception {
    return write(tmp, corpus, gzip);
  }

  private static Path write(Path dir, String corpus, boolean gzip) throws Exception {
    Files.createDirectories(dir);
    if (gzip) {
      try (OutputStream out =
          new GZIPOutputStream(Files.newOutputStream(dir.resolve("corpus.jsonl.gz")))) {
        out.write(corpus.getBytes(StandardCharsets.UTF_8));
      }
    } else {
      Files.writeString(dir.resolve("corpus.jsonl"), corpus);
    }
    Files.writeString(dir.resolve("queries.jsonl"), "{\"_id\":\"q1\",\"text\":\"word3\"}\n");
    Files.writeString(
        Files.createDirectories(dir.resolve("qrels")).resolve("test.tsv"),
        "query-id\tcorpus-id\tscore\nq1\td3\t1\n");
    return dir;
  }

  @Test
  void aFolderCorpusIsAFileWalkWithItsSizeCountedOnce() throws Exception {
    BeirDataset dataset = BeirDatasetReader.read(folder(corpus(10), false));
    assertThat(dataset.corpus()).isInstanceOf(CorpusFile.class);
    assertThat(dataset.corpus().size()).isEqualTo(10);
    assertThat(dataset.corpus().toList()).hasSize(10);
    assertThat(dataset.corpus().head(3))
        .extracting(CorpusDocument::id)
        .containsExactly("d0", "d1", "d2");
    assertThat(dataset.corpus().documents(Set.of("d7", "d2", "missing")))
        .containsOnlyKeys("d2", "d7");
  }

  @Test
  void aGzippedCorpusReadsTheSameDocumentsAndHasItsOwnFingerprint() throws Exception {
    Path plain = write(tmp.resolve("plain"), corpus(25), false);
    Path gzipped = write(tmp.resolve("gzipped"), corpus(25), true);
    assertThat(BeirDatasetReader.read(gzipped).corpus().toList())
        .isEqualTo(BeirDatasetReader.read(plain).corpus().toList());
    assertThat(DatasetFingerprint.of(gzipped)).isNotEqualTo(DatasetFingerprint.of(plain));
  }

  @Test
  void bothAPlainAndAGzippedCorpusIsRefused() throws Exception {
    folder(corpus(2), false);
    folder(corpus(2), true);
    assertThatThrownBy(() -> BeirDatasetReader.read(tmp))
        .isInstanceOf(DatasetException.class)
        .hasMessageContaining("both corpus.jsonl and corpus.jsonl.gz");
  }

  @Test
  void slicesHaveBoundariesThatDependOnlyOnTheSliceSize() throws Exception {
    Corpus corpus = BeirDatasetReader.read(folder(corpus(10), false)).corpus();
    List<String> seen = new ArrayList<>();
    corpus.slices(
        4,
        (index, documents) ->
            seen.add(index + ":" + documents.getFirst().id() + ".." + documents.getLast().id()));
    assertThat(seen).containsExactly("0:d0..d3", "1:d4..d7", "2:d8..d9");
    assertThat(corpus.sliceCount(4)).isEqualTo(3);
    assertThat(Corpus.of(corpus.toList()).sliceCount(5)).isEqualTo(2);
  }

  @Test
  void aCorpusFileChangedAfterReadingIsRefusedNotTakenForAnotherCorpus() throws Exception {
    BeirDataset dataset = BeirDatasetReader.read(folder(corpus(5), false));
    Files.writeString(tmp.resolve("corpus.jsonl"), corpus(6));
    Files.setLastModifiedTime(
        tmp.resolve("corpus.jsonl"), FileTime.fromMillis(System.currentTimeMillis() + 5_000));
    assertThatThrownBy(() -> dataset.corpus().toList())
        .isInstanceOf(DatasetException.class)
        .hasMessageContaining("changed after the collection was read");
  }

  @Test
  void aWalkClosedEarlyReleasesItsFileAndANewWalkStartsAtTheFirstDocument() throws Exception {
    Corpus corpus = BeirDatasetReader.read(folder(corpus(6), false)).corpus();
    try (Corpus.Walk walk = corpus.walk()) {
      assertThat(walk.next().id()).isEqualTo("d0");
      assertThat(walk.next().id()).isEqualTo("d1");
    }
    try (Corpus.Walk walk = corpus.walk()) {
      assertThat(walk.next().id()).isEqualTo("d0");
    }
    assertThat(corpus.stream().map(CorpusDocument::id).toList()).hasSize(6);
  }

  @Test
  void aDuplicateIdIsFoundWherePreviouslyAndNamesItsLine() throws Exception {
    assertThatThrownBy(
            () ->
                BeirDatasetReader.read(
                    folder(corpus(4) + "{\"_id\":\"d2\",\"text\":\"again\"}\n", false)))
        .isInstanceOf(DatasetException.class)
        .hasMessageContaining("line 5: duplicate \"_id\" d2");
  }

  @Test
  void onlyTheJudgedDocumentsAreKeptForTheSpansAndWarnings() throws Exception {
    Files.writeString(
        Files.createDirectories(tmp.resolve("qrels")).resolve("test.tsv"),
        "query-id\tcorpus-id\tscore\nq1\td3\t1\nq1\tgone\t0\n");
    Files.writeString(tmp.resolve("corpus.jsonl"), corpus(5));
    Files.writeString(tmp.resolve("queries.jsonl"), "{\"_id\":\"q1\",\"text\":\"word3\"}\n");
    BeirDataset dataset = BeirDatasetReader.read(tmp);
    assertThat(dataset.warnings())
        .containsExactly(
            "1 judgments in qrels/test.tsv name documents absent from corpus.jsonl (they count as"
                + " relevant documents never retrieved)");
  }

  @Test
  void aFolderCorpusCountsItsWordsInTheWalkThatChecksItAsAWalkWouldCountThem() throws Exception {
    String corpus =
        "{\"_id\":\"a\",\"title\":\"Two words\",\"text\":\"  and\\tthree more \"}\n"
            + "{\"_id\":\"b\",\"text\":\"\"}\n"
            + "{\"_id\":\"c\",\"title\":\" \",\"text\":\"one\\u2003word\\nand\\u2003two\"}\n"
            + "{\"_id\":\"d3\",\"title\":\"only a title\"}\n";
    Path dir = folder(corpus, false);
    BeirDataset dataset = BeirDatasetReader.read(dir);
    // 5, 0, 2 (an em space is no separator), 3.
    assertThat(dataset.corpus().words()).isEqualTo(10);
    assertThat(Corpus.of(dataset.corpus().toList()).words()).isEqualTo(10);

    // Counted once, when the folder was read: no walk of a file that has since gone.
    Files.delete(dir.resolve("corpus.jsonl"));
    assertThat(dataset.corpus().words()).isEqualTo(10);
  }
}
