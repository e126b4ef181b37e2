package dev.tenbin.bench.corpus;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tenbin.scoring.beir.BeirDataset;
import dev.tenbin.scoring.beir.BeirDatasetReader;
import dev.tenbin.scoring.beir.CorpusDocument;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The generated collection of scale benchmarks: a valid BEIR folder, the same bytes each time. */
class GeneratedCorpusTest {
  @TempDir Path tmp;

  private static final GeneratedCorpus SMALL =
      new GeneratedCorpus(2_000, 50, 5_000, 40, 90, 42, false);

  @Test
  void theSameOptionsWriteTheSameBytes() throws Exception {
    SMALL.write(tmp.resolve("a"));
    SMALL.write(tmp.resolve("b"));
    for (String file : new String[] {"corpus.jsonl", "queries.jsonl", "qrels/test.tsv"}) {
      assertThat(Files.readAllBytes(tmp.resolve("b").resolve(file)))
          .as(file)
          .isEqualTo(Files.readAllBytes(tmp.resolve("a").resolve(file)));
    }
    new GeneratedCorpus(2_000, 50, 5_000, 40, 90, 43, false).write(tmp.resolve("c"));
    assertThat(Files.readAllBytes(tmp.resolve("c/corpus.jsonl")))
        .isNotEqualTo(Files.readAllBytes(tmp.resolve("a/corpus.jsonl")));
  }

  @Test
  void passagesHaveTheirLengthsAndEachQueryItsWordsFromTheJudgedPassage() throws Exception {
    BeirDataset data = BeirDatasetReader.read(SMALL.write(tmp.resolve("c")));
    assertThat(data.corpus().size()).isEqualTo(2_000);
    assertThat(data.evaluatedQueryIds()).hasSize(50);
    data.corpus().forEach(doc -> assertThat(doc.text().split(" ").length).isBetween(40, 90));
    Set<String> judged = new HashSet<>();
    for (String query : data.evaluatedQueryIds()) {
      judged.addAll(data.qrels().judgments(query).keySet());
    }
    Map<String, CorpusDocument> passages = data.corpus().documents(judged);
    for (String query : data.evaluatedQueryIds()) {
      String passage = data.qrels().judgments(query).keySet().iterator().next();
      Set<String> words = new HashSet<>(Arrays.asList(passages.get(passage).text().split(" ")));
      assertThat(Arrays.asList(data.queries().get(query).split(" ")))
          .as(query)
          .hasSizeBetween(3, 6)
          .allMatch(words::contains);
    }
  }

  @Test
  void aGzippedCorpusReadsAsThePlainOne() throws Exception {
    Path plain = SMALL.write(tmp.resolve("plain"));
    Path gzipped =
        new GeneratedCorpus(2_000, 50, 5_000, 40, 90, 42, true).write(tmp.resolve("gzipped"));
    assertThat(Files.exists(gzipped.resolve("corpus.jsonl"))).isFalse();
    assertThat(BeirDatasetReader.read(gzipped).corpus().toList())
        .isEqualTo(BeirDatasetReader.read(plain).corpus().toList());
  }

  @Test
  void impossibleSizesAreRefused() {
    assertThatThrownBy(() -> new GeneratedCorpus(10, 11, 100, 1, 2, 1, false))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new GeneratedCorpus(10, 1, 100, 5, 2, 1, false))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
