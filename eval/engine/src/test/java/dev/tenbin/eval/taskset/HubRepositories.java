package dev.tenbin.eval.taskset;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.zip.GZIPOutputStream;

/**
 * Small hub dataset repositories written to disk for {@link FakeHub}: three documents, two queries,
 * and judgments that make both queries evaluable.
 */
final class HubRepositories {
  private HubRepositories() {}

  static final String CORPUS_ROWS =
      "('d1', 'Apples', 'apples grow on trees'), ('d2', '', 'bananas grow in plantations'),"
          + " ('d3', NULL, 'the train leaves at noon')";
  static final String QUERY_ROWS = "('q1', 'where do apples grow'), ('q2', 'train times')";
  static final String QRELS_ROWS = "('q1', 'd1', 1), ('q2', 'd3', 2)";

  /**
   * The datasets-library layout of one task, as {@code zeta-alpha-ai/NanoSciFact} has it: {@code
   * corpus/SPLIT-00000-of-00001.parquet} and the same for queries and qrels.
   */
  static Path parquet(Path dir, String... splits) throws IOException, SQLException {
    Files.createDirectories(dir);
    Files.writeString(dir.resolve("README.md"), "---\nconfigs: [corpus, queries, qrels]\n---\n");
    for (String split : splits) {
      String file = split + "-00000-of-00001.parquet";
      copy(
          "SELECT * FROM (VALUES " + CORPUS_ROWS + ") t(_id, title, text)",
          dir.resolve("corpus").resolve(file));
      copy(
          "SELECT * FROM (VALUES " + QUERY_ROWS + ") t(_id, text)",
          dir.resolve("queries").resolve(file));
      copy(
          "SELECT * FROM (VALUES " + QRELS_ROWS + ") t(\"query-id\", \"corpus-id\", score)",
          dir.resolve("qrels").resolve(file));
    }
    return dir;
  }

  /**
   * A JSON-lines layout: {@code corpus.jsonl} at the top, gzipped {@code queries/train.jsonl.gz},
   * and {@code qrels/train.tsv} with {@code query_id}/{@code doc_id} columns and no score.
   */
  static Path jsonl(Path dir) throws IOException {
    Files.createDirectories(dir.resolve("queries"));
    Files.createDirectories(dir.resolve("qrels"));
    Files.writeString(
        dir.resolve("corpus.jsonl"),
        """
        {"_id": "d1", "title": "Apples", "text": "apples grow on trees"}
        {"_id": "d2", "text": "bananas grow in plantations"}
        {"_id": "d3", "title": null, "text": "the train leaves at noon"}
        """);
    try (OutputStream out =
        new GZIPOutputStream(Files.newOutputStream(dir.resolve("queries/train.jsonl.gz")))) {
      out.write(
          "{\"_id\": \"q1\", \"text\": \"where do apples grow\"}\n{\"_id\": \"q2\", \"text\": \"train times\"}\n"
              .getBytes(StandardCharsets.UTF_8));
    }
    Files.writeString(dir.resolve("qrels/train.tsv"), "query_id\tdoc_id\nq1\td1\nq2\td3\n");
    return dir;
  }

  private static void copy(String select, Path target) throws IOException, SQLException {
    Files.createDirectories(target.getParent());
    try (Connection duckdb = DriverManager.getConnection("jdbc:duckdb:");
        Statement statement = duckdb.createStatement()) {
      statement.execute(
          "COPY (" + select + ") TO '" + target.toAbsolutePath() + "' (FORMAT parquet)");
    }
  }
}
