package dev.tenbin.eval.nano;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenbin.scoring.beir.AnswerSpan;
import dev.tenbin.scoring.beir.BeirDataset;
import dev.tenbin.scoring.beir.BeirDatasetReader;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A Nano-set of a span-annotated collection keeps the spans of the queries it keeps. */
class NanoSetSpansTest {
  @TempDir Path tmp;

  @Test
  void theKeptQueriesKeepTheirSpansAndNanoJsonCountsThem() throws Exception {
    Path source = tmp.resolve("source");
    Files.createDirectories(source.resolve("qrels"));
    StringBuilder corpus = new StringBuilder();
    StringBuilder queries = new StringBuilder();
    StringBuilder qrels = new StringBuilder();
    StringBuilder spans = new StringBuilder("query-id\tcorpus-id\tstart\tend\n");
    for (int i = 0; i < 250; i++) {
      corpus.append(String.format("{\"_id\":\"d%d\",\"text\":\"passage number %d\"}%n", i, i));
      queries.append(String.format("{\"_id\":\"q%d\",\"text\":\"question %d\"}%n", i, i));
      qrels.append(String.format("q%d\td%d\t1%n", i, i));
      spans.append(String.format("q%d\td%d\t8\t14%n", i, i));
    }
    Files.writeString(source.resolve("corpus.jsonl"), corpus);
    Files.writeString(source.resolve("queries.jsonl"), queries);
    Files.writeString(source.resolve("qrels/test.tsv"), qrels);
    Files.writeString(source.resolve("qrels/spans.tsv"), spans);

    Path out = tmp.resolve("nano");
    new NanoSetBuilder().build(BeirDatasetReader.read(source), 3, out);

    BeirDataset nano = BeirDatasetReader.read(out);
    assertThat(nano.queries()).hasSize(NanoSetBuilder.MAX_QUERIES);
    assertThat(nano.spans().size()).isEqualTo(NanoSetBuilder.MAX_QUERIES);
    for (String query : nano.evaluatedQueryIds()) {
      AnswerSpan span = nano.spans().span(query).orElseThrow();
      assertThat(span.documentId()).isEqualTo("d" + query.substring(1));
      assertThat(span.start()).isEqualTo(8);
      assertThat(span.end()).isEqualTo(14);
    }
    assertThat(Files.readString(out.resolve("nano.json"))).contains("\"spans\" : 200");
  }
}
