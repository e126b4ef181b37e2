package dev.tenbin.index.search;

import dev.tenbin.index.rank.Hit;
import java.util.List;

/**
 * The rankings of a {@link SearchRequest}, one per query in request order, each best first ({@link
 * Hit#RANKING}), and facts about how they were made.
 *
 * @param exactRankings for an approximate (HNSW) dense search, each query's exact top-k of the same
 *     variant, the reference its recall was measured against (a sharded collection merges them into
 *     the whole collection's); empty for every other search
 */
public record SearchResult(
    List<List<Hit>> rankings, SearchStats stats, List<List<Hit>> exactRankings) {
  public SearchResult {
    exactRankings = List.copyOf(exactRankings);
  }

  /** A search without exact reference rankings. */
  public SearchResult(List<List<Hit>> rankings, SearchStats stats) {
    this(rankings, stats, List.of());
  }
}
