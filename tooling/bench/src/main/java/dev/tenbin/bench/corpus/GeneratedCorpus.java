package dev.tenbin.bench.corpus;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.OutputStream;
import java.io.OutputStreamWriter;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.zip.GZIPOutputStream;

/**
 * A seeded BEIR-format collection of any size for scale benchmarks: passages of {@code minWords} to
 * {@code maxWords} words drawn from a vocabulary of {@code vocabulary} made-up words with Zipf's
 * law (exponent 1, as word frequencies in text roughly follow), and queries of 3 to 6 words drawn
 * from one passage each, that passage judged relevant. Written as it is generated: memory stays in
 * the size of the vocabulary and the queries, whatever the corpus's size. The same arguments write
 * the same bytes.
 *
 * @param documents passages
 * @param queries queries (each judges one passage, chosen at random)
 * @param vocabulary distinct words
 * @param minWords shortest passage, in words
 * @param maxWords longest passage, in words
 * @param seed the random seed
 * @param gzip whether the corpus is written as {@code corpus.jsonl.gz}
 */
public record GeneratedCorpus(
    int documents,
    int queries,
    int vocabulary,
    int minWords,
    int maxWords,
    long seed,
    boolean gzip) {

  public GeneratedCorpus {
    if (documents < 1 || queries < 1 || queries > documents) {
      throw new IllegalArgumentException(
          "documents must be at least 1 and queries between 1 and the documents");
    }
    if (vocabulary < 10 || minWords < 1 || maxWords < minWords) {
      throw new IllegalArgumentException("vocabulary >= 10 and 1 <= minWords <= maxWords");
    }
  }

  /** One million passages of 40 to 90 words, 1,000 queries. */
  public static GeneratedCorpus million() {
    return new GeneratedCorpus(1_000_000, 1_000, 100_000, 40, 90, 42, false);
  }

  /** Writes the collection into {@code directory} (created; existing files are replaced). */
  public Path write(Path directory) {
    SplittableRandom random = new SplittableRandom(seed);
    String[] words = words(random);
    double[] cumulative = zipf();
    // The passages the queries are drawn from, chosen before the corpus is written.
    Map<Integer, List<Integer>> queriesOf = new HashMap<>();
    int[] targets = new int[queries];
    for (int q = 0; q < queries; q++) {
      targets[q] = random.nextInt(documents);
      queriesOf.computeIfAbsent(targets[q], d -> new ArrayList<>()).add(q);
    }
    String[] queryTexts = new String[queries];
    try {
      Files.createDirectories(directory.resolve("qrels"));
      Files.deleteIfExists(directory.resolve(gzip ? "corpus.jsonl" : "corpus.jsonl.gz"));
      Path corpusFile = directory.resolve(gzip ? "corpus.jsonl.gz" : "corpus.jsonl");
      try (Writer corpus = writer(corpusFile)) {
        StringBuilder line = new StringBuilder(1024);
        int[] passage = new int[maxWords];
        for (int d = 0; d < documents; d++) {
          int length = minWords + random.nextInt(maxWords - minWords + 1);
          for (int w = 0; w < length; w++) {
            passage[w] = draw(cumulative, random);
          }
          line.setLength(0);
          line.append("{\"_id\":\"d").append(d).append("\",\"title\":\"\",\"text\":\"");
          for (int w = 0; w < length; w++) {
            if (w > 0) {
              line.append(' ');
            }
            line.append(words[passage[w]]);
          }
          line.append("\"}\n");
          corpus.write(line.toString());
          List<Integer> fromHere = queriesOf.get(d);
          if (fromHere != null) {
            for (int q : fromHere) {
              queryTexts[q] = query(passage, length, words, random);
            }
          }
        }
      }
      try (Writer queryFile = writer(directory.resolve("queries.jsonl"));
          Writer qrels = writer(directory.resolve("qrels").resolve("test.tsv"))) {
        qrels.write("query-id\tcorpus-id\tscore\n");
        for (int q = 0; q < queries; q++) {
          queryFile.write("{\"_id\":\"q" + q + "\",\"text\":\"" + queryTexts[q] + "\"}\n");
          qrels.write("q" + q + "\td" + targets[q] + "\t1\n");
        }
      }
      return directory;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write the generated collection in " + directory, e);
    }
  }

  private static Writer writer(Path file) throws IOException {
    OutputStream out = Files.newOutputStream(file);
    if (file.getFileName().toString().endsWith(".gz")) {
      out = new GZIPOutputStream(out, 1 << 16);
    }
    return new BufferedWriter(new OutputStreamWriter(out, StandardCharsets.UTF_8), 1 << 16);
  }

  /** 3 to 6 distinct-position words of a passage. */
  private static String query(int[] passage, int length, String[] words, SplittableRandom random) {
    int size = Math.min(length, 3 + random.nextInt(4));
    StringBuilder text = new StringBuilder();
    for (int i = 0; i < size; i++) {
      text.append(i == 0 ? "" : " ").append(words[passage[random.nextInt(length)]]);
    }
    return text.toString();
  }

  /** The vocabulary: distinct lowercase words of 3 to 10 letters. */
  private String[] words(SplittableRandom random) {
    String[] words = new String[vocabulary];
    java.util.Set<String> seen = new java.util.HashSet<>();
    char[] letters = "abcdefghijklmnopqrstuvwxyz".toCharArray();
    for (int i = 0; i < vocabulary; ) {
      int length = 3 + random.nextInt(8);
      char[] word = new char[length];
      for (int c = 0; c < length; c++) {
        word[c] = letters[random.nextInt(letters.length)];
      }
      String candidate = new String(word);
      if (seen.add(candidate)) {
        words[i++] = candidate;
      }
    }
    return words;
  }

  /** Cumulative Zipf probabilities over the vocabulary's ranks (exponent 1). */
  private double[] zipf() {
    double[] cumulative = new double[vocabulary];
    double sum = 0;
    for (int rank = 0; rank < vocabulary; rank++) {
      sum += 1.0 / (rank + 1);
      cumulative[rank] = sum;
    }
    for (int rank = 0; rank < vocabulary; rank++) {
      cumulative[rank] /= sum;
    }
    return cumulative;
  }

  private static int draw(double[] cumulative, SplittableRandom random) {
    int at = Arrays.binarySearch(cumulative, random.nextDouble());
    return Math.min(cumulative.length - 1, at >= 0 ? at : -at - 1);
  }
}
