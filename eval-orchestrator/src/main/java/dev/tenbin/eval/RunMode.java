package dev.tenbin.eval;

import java.util.List;

/** How a run was ranked: over the whole corpus, or by a reranker over a stored candidate set. */
public enum RunMode {
  /** The whole corpus. */
  RETRIEVAL("retrieval"),
  /** A candidate set, its safeguard positive included. */
  RERANK("rerank"),
  /** A candidate set with its safeguard positive removed from the reranked list. */
  RERANK_WITHOUT_SAFEGUARD("rerank_without_safeguard");

  /** The modes one reranker pass produces. */
  public static final List<RunMode> RERANK_MODES = List.of(RERANK, RERANK_WITHOUT_SAFEGUARD);

  private final String wireName;

  RunMode(String wireName) {
    this.wireName = wireName;
  }

  /** The name in results, cell keys and file names, e.g. "rerank_without_safeguard". */
  public String wireName() {
    return wireName;
  }

  @Override
  public String toString() {
    return wireName;
  }
}
