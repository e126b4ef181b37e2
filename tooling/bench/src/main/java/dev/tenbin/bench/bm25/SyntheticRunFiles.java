package dev.tenbin.bench.bm25;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.Writer;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Random;

/**
 * A seeded TREC run and its qrels, for measuring {@code tenbin metrics} against {@code trec_eval}
 * at scale: the same (queries, depth, seed) always give the same bytes.
 *
 * <p>What the files hold, to exercise every rule of the evaluation:
 *
 * <ul>
 *   <li>{@code queries} judged queries {@code q0..}; every 20th is absent from the run (scores 0
 *       under {@code -c}), and one unjudged run query {@code u0..} is added per 50 queries (ignored
 *       by both evaluators);
 *   <li>{@code depth} documents per run query, ids {@code d<number>} unique within the query (and
 *       shared between queries from a common pool), scores descending in file order, ranks 1..;
 *   <li>scores with four decimals, and for every third query one decimal only, so many scores tie
 *       and the tie order (score descending, docno descending) decides;
 *   <li>graded judgments: 1 to 8 relevant documents with grades 1 to 3, most retrieved near the top
 *       and some not retrieved at all; 10 to 30 judged non-relevant (grade 0) documents; every 25th
 *       query judged with grade 0 only; the other retrieved documents unjudged.
 * </ul>
 *
 * <p>Lines end in {@code \n}; run lines are {@code qid Q0 docid rank score synthetic}, qrels lines
 * {@code qid 0 docid grade}.
 */
public final class SyntheticRunFiles {
  /** Run file name in the output folder. */
  public static final String RUN_FILE = "run.trec";

  /** Qrels file name in the output folder. */
  public static final String QRELS_FILE = "qrels.trec";

  private static final int DOCUMENT_POOL = 10_000_000;

  private SyntheticRunFiles() {}

  /**
   * What was written.
   *
   * @param runLines lines of the run file
   * @param qrelsLines lines of the qrels file
   * @param judgedQueries queries of the qrels
   * @param runQueries queries of the run (judged ones present plus unjudged ones)
   */
  public record Summary(long runLines, long qrelsLines, int judgedQueries, int runQueries) {}

  /**
   * Writes {@link #RUN_FILE} and {@link #QRELS_FILE} into {@code folder} (created if missing).
   *
   * @throws IllegalArgumentException when queries or depth is not positive
   */
  public static Summary write(Path folder, int queries, int depth, long seed) throws IOException {
    Files.createDirectories(folder);
    try (BufferedWriter run =
            Files.newBufferedWriter(folder.resolve(RUN_FILE), StandardCharsets.UTF_8);
        BufferedWriter qrels =
            Files.newBufferedWriter(folder.resolve(QRELS_FILE), StandardCharsets.UTF_8)) {
      return write(run, qrels, queries, depth, seed);
    }
  }

  /** Writes the two files to open writers, which are left open. */
  public static Summary write(Writer run, Writer qrels, int queries, int depth, long seed)
      throws IOException {
    if (queries < 1 || depth < 1) {
      throw new IllegalArgumentException(
          "queries and depth must be positive, got " + queries + " and " + depth);
    }
    Random random = new Random(seed);
    long runLines = 0;
    long qrelsLines = 0;
    int runQueries = 0;
    StringBuilder line = new StringBuilder(64);
    for (int q = 0; q < queries; q++) {
      String queryId = "q" + q;
      boolean inRun = q % 20 != 19;
      long[] documents = distinctDocuments(random, depth);
      int[] scores = descendingScores(random, depth, q % 3 == 2);
      if (inRun) {
        runLines += writeRanking(run, line, queryId, documents, scores);
        runQueries++;
      }
      qrelsLines += writeJudgments(qrels, line, random, queryId, documents, q % 25 == 24);
      if (q % 50 == 49) {
        String unjudged = "u" + (q / 50);
        runLines +=
            writeRanking(
                run,
                line,
                unjudged,
                distinctDocuments(random, depth),
                descendingScores(random, depth, false));
        runQueries++;
      }
    }
    return new Summary(runLines, qrelsLines, queries, runQueries);
  }

  /** {@code depth} distinct document numbers below {@link #DOCUMENT_POOL}, in random order. */
  private static long[] distinctDocuments(Random random, int depth) {
    // A random start and an odd stride below the pool: distinct while depth <= pool.
    long start = random.nextInt(DOCUMENT_POOL);
    long stride = 1 + 2L * random.nextInt(DOCUMENT_POOL / 4);
    long[] documents = new long[depth];
    for (int i = 0; i < depth; i++) {
      documents[i] = (start + i * stride) % DOCUMENT_POOL;
    }
    return documents;
  }

  /**
   * Scores in units of 1/10000, non-increasing; coarse ones are multiples of 1000 (one decimal), so
   * neighbours often tie.
   */
  private static int[] descendingScores(Random random, int depth, boolean coarse) {
    int[] scores = new int[depth];
    int score = 300_000 + random.nextInt(100_000);
    for (int i = 0; i < depth; i++) {
      scores[i] = coarse ? Math.max(10_000, score - score % 1000) : Math.max(10_000, score);
      score -= random.nextInt(coarse ? 400 : 60);
    }
    return scores;
  }

  private static long writeRanking(
      Writer out, StringBuilder line, String queryId, long[] documents, int[] scores)
      throws IOException {
    for (int i = 0; i < documents.length; i++) {
      line.setLength(0);
      line.append(queryId)
          .append(" Q0 d")
          .append(documents[i])
          .append(' ')
          .append(i + 1)
          .append(' ')
          .append(BigDecimal.valueOf(scores[i], 4).toPlainString())
          .append(" synthetic\n");
      out.append(line);
    }
    return documents.length;
  }

  private static long writeJudgments(
      Writer out,
      StringBuilder line,
      Random random,
      String queryId,
      long[] documents,
      boolean nonRelevantOnly)
      throws IOException {
    int depth = documents.length;
    int relevant = nonRelevantOnly ? 0 : 1 + random.nextInt(8);
    int nonRelevant = 10 + random.nextInt(21);
    long lines = 0;
    java.util.Set<Long> judged = new java.util.HashSet<>();
    for (int j = 0; j < relevant + nonRelevant; j++) {
      boolean isRelevant = j < relevant;
      long document;
      if (isRelevant && random.nextInt(5) == 0) {
        // Relevant but not retrieved: a number outside the pool.
        document = (long) DOCUMENT_POOL + random.nextInt(DOCUMENT_POOL);
      } else {
        // Retrieved, relevant ones near the top (a geometric-like position).
        int position =
            isRelevant
                ? Math.min(depth - 1, (int) (-Math.log(1 - random.nextDouble()) * 15))
                : random.nextInt(depth);
        document = documents[position];
      }
      if (!judged.add(document)) {
        continue;
      }
      int grade = isRelevant ? 1 + random.nextInt(3) : 0;
      line.setLength(0);
      line.append(queryId).append(" 0 d").append(document).append(' ').append(grade).append('\n');
      out.append(line);
      lines++;
    }
    return lines;
  }
}
