package dev.tenbin.scoring.metrics;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.RandomAccess;

/**
 * The order in which a query's ranking is evaluated. In both orders a document id repeated within a
 * ranking keeps only its first occurrence (in the order given), so it can be counted once.
 */
public enum RunOrder {
  /**
   * The list as given. Tenbin's own rankings are already ordered by score descending, then doc id
   * ascending, and that deterministic order is what Tenbin reports.
   */
  AS_GIVEN,
  /**
   * As {@code trec_eval} orders a run file: the rank column is ignored and the documents are
   * re-sorted by score descending, equal scores by docno descending in {@code strcmp} order (the
   * byte order of UTF-8, which is code point order). trec_eval 10 itself refuses a run with a docno
   * repeated within a query ("duplicate docs"); here the first line of such a docno is kept.
   */
  TREC_EVAL;

  /** Score descending with C's {@code >}/{@code <} (so 0.0 and -0.0 tie), then docno descending. */
  static final Comparator<ScoredDoc> TREC_EVAL_ORDER =
      (a, b) -> {
        if (a.score() > b.score()) {
          return -1;
        }
        if (a.score() < b.score()) {
          return 1;
        }
        return compareAsStrcmp(b.docId(), a.docId());
      };

  /** The ranking to evaluate: a new list, the input is left as it is. */
  public List<ScoredDoc> apply(List<ScoredDoc> ranking) {
    List<ScoredDoc> unique = firstOccurrences(ranking);
    if (this == TREC_EVAL) {
      unique.sort(TREC_EVAL_ORDER);
    }
    return unique;
  }

  /**
   * How many documents of a ranking repeat the id of an earlier one (and are dropped by {@link
   * #apply}).
   */
  public static int repeatedDocuments(List<ScoredDoc> ranking) {
    return ranking.size() - firstOccurrences(ranking).size();
  }

  /**
   * The first document of each id, in the order given. An open-addressing table of positions (at
   * most half full) instead of a HashSet: a run file holds a million documents, and a set would
   * allocate an entry for each.
   */
  private static List<ScoredDoc> firstOccurrences(List<ScoredDoc> given) {
    // The table holds positions, read back by index.
    List<ScoredDoc> ranking = given instanceof RandomAccess ? given : new ArrayList<>(given);
    int n = ranking.size();
    List<ScoredDoc> unique = new ArrayList<>(n);
    if (n < 2) {
      unique.addAll(ranking);
      return unique;
    }
    int bits = Math.min(30, 33 - Integer.numberOfLeadingZeros(n - 1));
    int[] firstPlusOne = new int[1 << bits];
    int mask = firstPlusOne.length - 1;
    for (int i = 0; i < n; i++) {
      ScoredDoc doc = ranking.get(i);
      String id = doc.docId();
      int slot = (id.hashCode() * 0x9E3779B9) >>> (32 - bits);
      boolean repeated = false;
      while (firstPlusOne[slot] != 0) {
        if (ranking.get(firstPlusOne[slot] - 1).docId().equals(id)) {
          repeated = true;
          break;
        }
        slot = (slot + 1) & mask;
      }
      if (!repeated) {
        firstPlusOne[slot] = i + 1;
        unique.add(doc);
      }
    }
    return unique;
  }

  /**
   * Compares as {@code strcmp} compares the UTF-8 bytes of two strings: by code point. (String's
   * own compareTo compares UTF-16 units, which orders supplementary characters below
   * U+E000-U+FFFF.)
   */
  static int compareAsStrcmp(String a, String b) {
    int common = Math.min(a.length(), b.length());
    for (int k = 0; k < common; k++) {
      char ca = a.charAt(k);
      char cb = b.charAt(k);
      if (ca != cb) {
        // Equal up to here, so both are at a character boundary unless one is a surrogate; two
        // characters of the Basic Multilingual Plane compare as their code points.
        if (Character.isSurrogate(ca) || Character.isSurrogate(cb)) {
          return compareCodePoints(a, b);
        }
        return Integer.compare(ca, cb);
      }
    }
    return Integer.compare(a.length(), b.length());
  }

  private static int compareCodePoints(String a, String b) {
    int i = 0;
    int j = 0;
    while (i < a.length() && j < b.length()) {
      int ca = a.codePointAt(i);
      int cb = b.codePointAt(j);
      if (ca != cb) {
        return Integer.compare(ca, cb);
      }
      i += Character.charCount(ca);
      j += Character.charCount(cb);
    }
    return Integer.compare(a.length() - i, b.length() - j);
  }
}
