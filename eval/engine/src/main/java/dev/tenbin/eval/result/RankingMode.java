package dev.tenbin.eval.result;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import java.util.Arrays;
import java.util.List;

/** How a run was ranked: over the whole corpus, or by a reranker over a stored candidate set. */
public enum RankingMode {
  /** The whole corpus. */
  RETRIEVAL("retrieval"),
  /** A candidate set, its safeguard positive included. */
  RERANK("rerank"),
  /** A candidate set with its safeguard positive removed from the reranked list. */
  RERANK_WITHOUT_SAFEGUARD("rerank_without_safeguard");

  /** The modes one reranker pass produces. */
  public static final List<RankingMode> RERANK_MODES = List.of(RERANK, RERANK_WITHOUT_SAFEGUARD);

  private final String wireName;

  RankingMode(String wireName) {
    this.wireName = wireName;
  }

  /**
   * The name in results, cell keys (stored cells and fingerprints) and file names, e.g.
   * "rerank_without_safeguard".
   */
  @JsonValue
  public String wireName() {
    return wireName;
  }

  /**
   * The mode of a wire name, as stored cells write it.
   *
   * @throws IllegalArgumentException naming the known modes when {@code wireName} is none of them
   *     (a stored cell that names one is refused as damaged)
   */
  @JsonCreator
  public static RankingMode ofWireName(String wireName) {
    for (RankingMode mode : values()) {
      if (mode.wireName.equals(wireName)) {
        return mode;
      }
    }
    throw new IllegalArgumentException(
        "unknown mode '"
            + wireName
            + "': expected one of "
            + Arrays.stream(values()).map(RankingMode::wireName).toList());
  }

  @Override
  public String toString() {
    return wireName;
  }
}
