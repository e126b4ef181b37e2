package dev.tenbin.integration.cache;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/** The corpus the sliced-encode tests cut into slices: any number of documents, words cycling. */
final class SlicedCorpus {
  private static final String[] WORDS = {
    "apple", "river", "train", "cloud", "stone", "garden", "copper", "violin"
  };

  /** The judged queries, one per word. */
  static final int QUERIES = WORDS.length;

  private SlicedCorpus() {}

  /** The text of document {@code i} (its title is empty). */
  static String text(int i) {
    return WORDS[i % WORDS.length] + " " + WORDS[(i / 8) % WORDS.length] + " number " + i;
  }

  /**
   * A BEIR folder of {@code documents} short documents (each text distinct) and {@value #QUERIES}
   * judged queries.
   */
  static Path write(Path dir, int documents) throws IOException {
    Files.createDirectories(dir.resolve("qrels"));
    String[] words = WORDS;
    StringBuilder corpus = new StringBuilder();
    for (int i = 0; i < documents; i++) {
      corpus
          .append("{\"_id\": \"d")
          .append(i)
          .append("\", \"title\": \"\", \"text\": \"")
          .append(text(i))
          .append("\"}\n");
    }
    Files.writeString(dir.resolve("corpus.jsonl"), corpus, StandardCharsets.UTF_8);
    StringBuilder queries = new StringBuilder();
    StringBuilder qrels = new StringBuilder("query-id\tcorpus-id\tscore\n");
    for (int q = 0; q < words.length; q++) {
      queries
          .append("{\"_id\": \"q")
          .append(q)
          .append("\", \"text\": \"")
          .append(words[q])
          .append(' ')
          .append(words[(q + 3) % words.length])
          .append("\"}\n");
      qrels.append("q").append(q).append("\td").append(q * 1_000 + q).append("\t1\n");
    }
    Files.writeString(dir.resolve("queries.jsonl"), queries, StandardCharsets.UTF_8);
    Files.writeString(dir.resolve("qrels").resolve("test.tsv"), qrels, StandardCharsets.UTF_8);
    return dir;
  }
}
