package dev.tenbin.scoring.beir;

import dev.tenbin.scoring.metrics.Qrels;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * A BEIR-format collection: its queries and judgments in memory, its corpus walked from its file
 * ({@link Corpus}): {@code corpus.jsonl}, {@code queries.jsonl} and {@code qrels/<split>.tsv}
 * ({@code test.tsv} by default), and {@code qrels/spans.tsv} where the collection has one.
 *
 * @param name the folder's name
 * @param directory the folder
 * @param corpus documents in file order, never held whole
 * @param queries query id to text, in file order
 * @param qrels the judgments, as read
 * @param spans each query's reference span in its positive document ({@code qrels/spans.tsv};
 *     {@link SpanQrels#none()} when the folder has none)
 * @param evaluatedQueryIds the queries of {@code queries.jsonl} with at least one judgment of score
 *     > 0 (the BEIR / HAKARI convention), in file order
 * @param warnings problems that do not stop an evaluation, such as qrels naming unknown queries
 * @param split the qrels split read ({@link BeirDatasetReader#DEFAULT_SPLIT} unless asked)
 */
public record BeirDataset(
    String name,
    Path directory,
    Corpus corpus,
    Map<String, String> queries,
    Qrels qrels,
    SpanQrels spans,
    List<String> evaluatedQueryIds,
    List<String> warnings,
    String split) {

  /** A collection of the default split. */
  public BeirDataset(
      String name,
      Path directory,
      Corpus corpus,
      Map<String, String> queries,
      Qrels qrels,
      SpanQrels spans,
      List<String> evaluatedQueryIds,
      List<String> warnings) {
    this(
        name,
        directory,
        corpus,
        queries,
        qrels,
        spans,
        evaluatedQueryIds,
        warnings,
        BeirDatasetReader.DEFAULT_SPLIT);
  }

  /** Whether its qrels are another split than {@code test}. */
  public boolean isDefaultSplit() {
    return split.equals(BeirDatasetReader.DEFAULT_SPLIT);
  }

  /** Titles and texts from the start of the corpus, up to about {@code maxChars} characters. */
  public String textSample(int maxChars) {
    StringBuilder sample = new StringBuilder();
    corpus.forEachWhile(
        doc -> {
          sample.append(doc.title()).append(' ').append(doc.text()).append('\n');
          return sample.length() < maxChars;
        });
    return sample.toString();
  }
}
