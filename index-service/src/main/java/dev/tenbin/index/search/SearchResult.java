package dev.tenbin.index.search;

import dev.tenbin.index.rank.Hit;
import java.util.List;

/**
 * The rankings of a {@link SearchRequest}, one per query in request order, each best first ({@link
 * Hit#RANKING}), and facts about how they were made.
 */
public record SearchResult(List<List<Hit>> rankings, SearchStats stats) {}
