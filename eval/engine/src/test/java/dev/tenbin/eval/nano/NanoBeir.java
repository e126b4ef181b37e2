package dev.tenbin.eval.nano;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tenbin.scoring.beir.BeirDataset;
import dev.tenbin.scoring.beir.BeirDatasetReader;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/** A small BEIR folder written from maps, for Nano-set tests. */
final class NanoBeir {
  private final Map<String, String> corpus = new LinkedHashMap<>();
  private final Map<String, String> queries = new LinkedHashMap<>();
  private final StringBuilder qrels = new StringBuilder("query-id\tcorpus-id\tscore\n");

  NanoBeir document(String id, String text) {
    corpus.put(id, text);
    return this;
  }

  NanoBeir query(String id, String text) {
    queries.put(id, text);
    return this;
  }

  NanoBeir judge(String query, String doc, int score) {
    qrels.append(query).append('\t').append(doc).append('\t').append(score).append('\n');
    return this;
  }

  BeirDataset write(Path dir) throws IOException {
    ObjectMapper json = new ObjectMapper();
    Files.createDirectories(dir.resolve("qrels"));
    StringBuilder corpusLines = new StringBuilder();
    corpus.forEach(
        (id, text) -> {
          try {
            corpusLines.append(
                json.writeValueAsString(Map.of("_id", id, "title", "", "text", text)) + "\n");
          } catch (IOException e) {
            throw new IllegalStateException(e);
          }
        });
    StringBuilder queryLines = new StringBuilder();
    queries.forEach(
        (id, text) -> {
          try {
            queryLines.append(json.writeValueAsString(Map.of("_id", id, "text", text)) + "\n");
          } catch (IOException e) {
            throw new IllegalStateException(e);
          }
        });
    Files.writeString(dir.resolve("corpus.jsonl"), corpusLines);
    Files.writeString(dir.resolve("queries.jsonl"), queryLines);
    Files.writeString(dir.resolve("qrels/test.tsv"), qrels);
    return BeirDatasetReader.read(dir);
  }
}
