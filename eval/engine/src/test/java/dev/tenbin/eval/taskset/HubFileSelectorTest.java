package dev.tenbin.eval.taskset;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class HubFileSelectorTest {
  @Test
  void shardedParquetOfTheSplitIsPreferredAndAllShardsAreTaken() {
    List<String> files =
        List.of(
            "README.md",
            "corpus.jsonl",
            "corpus/train-00001-of-00002.parquet",
            "corpus/train-00000-of-00002.parquet",
            "corpus/dev-00000-of-00001.parquet");
    assertThat(HubFileSelector.select(files, "corpus", "corpus", "train", ""))
        .containsExactly(
            "corpus/train-00000-of-00002.parquet", "corpus/train-00001-of-00002.parquet");
  }

  @Test
  void laterPatternsApplyOnlyWhenEarlierOnesMatchNothing() {
    assertThat(
            HubFileSelector.select(
                List.of("data/queries/test-0.parquet", "queries.jsonl"),
                "queries",
                "queries",
                "test",
                ""))
        .containsExactly("data/queries/test-0.parquet");
    assertThat(
            HubFileSelector.select(
                List.of("queries/test.jsonl.gz", "queries.jsonl"),
                "queries",
                "queries",
                "test",
                ""))
        .containsExactly("queries/test.jsonl.gz");
    assertThat(HubFileSelector.select(List.of("queries.jsonl"), "queries", "queries", "test", ""))
        .containsExactly("queries.jsonl");
    assertThat(HubFileSelector.select(List.of("qrels/test.tsv"), "qrels", "qrels", "test", ""))
        .containsExactly("qrels/test.tsv");
    assertThat(HubFileSelector.select(List.of("corpus/test.tsv"), "corpus", "corpus", "test", ""))
        .isEmpty();
  }

  @Test
  void starsStayWithinOnePathSegmentAndFormatFilters() {
    assertThat(
            HubFileSelector.select(
                List.of("corpus/train-x/y.parquet"), "corpus", "corpus", "train", ""))
        .isEmpty();
    List<String> both = List.of("docs/train.parquet", "docs/train.jsonl");
    assertThat(HubFileSelector.select(both, "corpus", "docs", "train", "jsonl"))
        .containsExactly("docs/train.jsonl");
    assertThat(HubFileSelector.select(both, "corpus", "docs", "train", ""))
        .containsExactly("docs/train.parquet");
  }
}
