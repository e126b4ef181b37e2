package dev.tenbin.scoring.beir;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.SplittableRandom;

/**
 * A seeded BEIR-format folder for tests, drills and benchmarks: documents of random English words
 * (so real encoders and BM25 do real work), queries drawn from one document each, and that document
 * judged relevant. The same seed writes the same bytes.
 */
public final class SyntheticBeir {
  private static final String[] WORDS =
      ("river mountain city history science music energy water light market school garden language "
              + "machine ocean forest island bridge station library museum engine planet animal culture "
              + "winter summer harvest village castle theory number signal pattern memory network travel "
              + "medicine weather climate storm desert valley harbor temple market coffee bread silver gold")
          .split(" ");

  private SyntheticBeir() {}

  /**
   * Writes {@code documents} documents of about {@code wordsPerDocument} words and {@code queries}
   * queries into {@code directory}.
   */
  public static Path write(
      Path directory, int documents, int wordsPerDocument, int queries, long seed) {
    SplittableRandom random = new SplittableRandom(seed);
    try {
      Files.createDirectories(directory.resolve("qrels"));
      String[][] texts = new String[documents][];
      try (Writer corpus =
          Files.newBufferedWriter(directory.resolve("corpus.jsonl"), StandardCharsets.UTF_8)) {
        for (int d = 0; d < documents; d++) {
          int length = wordsPerDocument / 2 + random.nextInt(wordsPerDocument);
          texts[d] = new String[length];
          for (int w = 0; w < length; w++) {
            texts[d][w] = WORDS[random.nextInt(WORDS.length)];
          }
          corpus.write(
              "{\"_id\":\"d"
                  + d
                  + "\",\"title\":\"\",\"text\":\""
                  + String.join(" ", texts[d])
                  + "\"}\n");
        }
      }
      try (Writer queryFile =
              Files.newBufferedWriter(directory.resolve("queries.jsonl"), StandardCharsets.UTF_8);
          Writer qrels =
              Files.newBufferedWriter(
                  directory.resolve("qrels").resolve("test.tsv"), StandardCharsets.UTF_8)) {
        qrels.write("query-id\tcorpus-id\tscore\n");
        for (int q = 0; q < queries; q++) {
          int target = random.nextInt(documents);
          StringBuilder text = new StringBuilder();
          for (int w = 0; w < 5; w++) {
            text.append(w == 0 ? "" : " ")
                .append(texts[target][random.nextInt(texts[target].length)]);
          }
          queryFile.write("{\"_id\":\"q" + q + "\",\"text\":\"" + text + "\"}\n");
          qrels.write("q" + q + "\td" + target + "\t1\n");
        }
      }
      return directory;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write the synthetic collection in " + directory, e);
    }
  }
}
