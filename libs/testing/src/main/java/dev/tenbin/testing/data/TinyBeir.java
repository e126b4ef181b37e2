package dev.tenbin.testing.data;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/** Writes a small BEIR-format folder whose BM25 results can be worked out by hand. */
public final class TinyBeir {
  private TinyBeir() {}

  public static Path write(Path dir) throws IOException {
    Files.createDirectories(dir.resolve("qrels"));
    Files.writeString(
        dir.resolve("corpus.jsonl"),
        String.join(
                "\n",
                "{\"_id\": \"d1\", \"title\": \"Apples\", \"text\": \"apples grow on apple trees in orchards\"}",
                "{\"_id\": \"d2\", \"title\": \"\", \"text\": \"bananas grow in tropical plantations\"}",
                "{\"_id\": \"d3\", \"text\": \"cherries are small red fruits\"}",
                "{\"_id\": \"d4\", \"title\": \"Trains\", \"text\": \"the train leaves the station at noon\"}")
            + "\n",
        StandardCharsets.UTF_8);
    Files.writeString(
        dir.resolve("queries.jsonl"),
        String.join(
                "\n",
                "{\"_id\": \"q1\", \"text\": \"where do apples grow\"}",
                "{\"_id\": \"q2\", \"text\": \"train station\"}",
                "{\"_id\": \"q3\", \"text\": \"red cherries\"}",
                "{\"_id\": \"q4\", \"text\": \"a query without judgments\"}")
            + "\n",
        StandardCharsets.UTF_8);
    Files.writeString(
        dir.resolve("qrels").resolve("test.tsv"),
        "query-id\tcorpus-id\tscore\n"
            + "q1\td1\t1\n"
            + "q2\td4\t2\n"
            + "q3\td3\t1\n"
            + "q3\tmissing-doc\t1\n"
            + "q9\td2\t1\n",
        StandardCharsets.UTF_8);
    return dir;
  }
}
