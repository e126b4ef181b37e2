package dev.tenbin.eval.nano;

import dev.tenbin.core.InvalidInputException;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;

/**
 * How a Nano-set is drawn, checked once: the caps (at most the protocol's 200 queries and 10,000
 * documents), the seed of the query draw and of the filler, where hard negatives come from, and the
 * miners with their depth.
 *
 * @param maxQueries queries kept, 1..200
 * @param maxDocuments documents kept, 1..10,000
 * @param seed seed of the query shuffle and of the filler sample
 * @param hardNegatives where hard negatives come from
 * @param miners the miners of mined hard negatives, distinct, at least one
 * @param miningDepth each miner's top-k per query, 1..1000
 */
public record NanoSettings(
    int maxQueries,
    int maxDocuments,
    long seed,
    HardNegatives hardNegatives,
    List<MinerSpec> miners,
    int miningDepth) {
  public static final int MAX_QUERIES = 200;
  public static final int MAX_DOCUMENTS = 10_000;
  public static final int DEFAULT_MINING_DEPTH = 50;
  public static final int MAX_MINING_DEPTH = 1_000;

  /** The default miners: BM25 and bge-small-en-v1.5. */
  public static final List<MinerSpec> DEFAULT_MINERS =
      List.of(MinerSpec.BM25, MinerSpec.parse("dense:" + MinerSpec.DEFAULT_DENSE_MODEL));

  /**
   * Where a Nano-set's hard negatives come from.
   *
   * <ul>
   *   <li>{@code AUTO}: judged ones when the kept queries' qrels carry any judged negative (score ≤
   *       0) in the corpus, else mined ones;
   *   <li>{@code JUDGED}: judged ones only (no mining);
   *   <li>{@code MINED}: mined ones only;
   *   <li>{@code BOTH}: per query its judged negatives first, then its mined ones.
   * </ul>
   */
  public enum HardNegatives {
    AUTO,
    JUDGED,
    MINED,
    BOTH;

    /** Parses auto, judged, mined or both; anything else fails naming {@code --hard-negatives}. */
    public static HardNegatives parse(String text) {
      for (HardNegatives value : values()) {
        if (value.label().equals(text)) {
          return value;
        }
      }
      throw new InvalidInputException(
          "--hard-negatives",
          "--hard-negatives must be auto, judged, mined or both, got '" + text + "'");
    }

    /** The name on the command line and in {@code nano.json}. */
    public String label() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  public NanoSettings {
    if (maxQueries < 1 || maxQueries > MAX_QUERIES) {
      throw new InvalidInputException(
          "--max-queries",
          "--max-queries must be within 1.." + MAX_QUERIES + ", got " + maxQueries);
    }
    if (maxDocuments < 1 || maxDocuments > MAX_DOCUMENTS) {
      throw new InvalidInputException(
          "--max-documents",
          "--max-documents must be within 1.." + MAX_DOCUMENTS + ", got " + maxDocuments);
    }
    if (miningDepth < 1 || miningDepth > MAX_MINING_DEPTH) {
      throw new InvalidInputException(
          "--mining-depth",
          "--mining-depth must be within 1.." + MAX_MINING_DEPTH + ", got " + miningDepth);
    }
    if (hardNegatives == null) {
      throw new InvalidInputException("--hard-negatives", "--hard-negatives is required");
    }
    miners = List.copyOf(miners);
    if (miners.isEmpty() && hardNegatives != HardNegatives.JUDGED) {
      throw new InvalidInputException(
          "--miners",
          "--miners must name at least one miner (bm25, dense:MODEL) unless --hard-negatives is"
              + " judged");
    }
    if (new HashSet<>(miners).size() != miners.size()) {
      throw new InvalidInputException(
          "--miners",
          "--miners names a miner twice: "
              + String.join(",", miners.stream().map(MinerSpec::name).toList()));
    }
  }

  /**
   * The protocol's defaults with {@code seed}: 200 queries, 10,000 documents, auto, BM25+dense@50.
   */
  public static NanoSettings defaults(long seed) {
    return new NanoSettings(
        MAX_QUERIES, MAX_DOCUMENTS, seed, HardNegatives.AUTO, DEFAULT_MINERS, DEFAULT_MINING_DEPTH);
  }
}
