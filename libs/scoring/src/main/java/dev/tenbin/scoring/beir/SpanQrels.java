package dev.tenbin.scoring.beir;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The reference span of each query that has one ({@code qrels/spans.tsv}); a query listed with
 * several spans keeps its earliest (smallest start, then smallest end, then first listed).
 */
public final class SpanQrels {
  private static final SpanQrels NONE = new SpanQrels(Map.of());

  private final Map<String, AnswerSpan> byQuery;

  private SpanQrels(Map<String, AnswerSpan> byQuery) {
    this.byQuery = Collections.unmodifiableMap(new LinkedHashMap<>(byQuery));
  }

  /** Spans by query id, in file order of each query's first line. */
  public static SpanQrels of(Map<String, AnswerSpan> byQuery) {
    return byQuery.isEmpty() ? NONE : new SpanQrels(byQuery);
  }

  /** A collection without spans. */
  public static SpanQrels none() {
    return NONE;
  }

  public Optional<AnswerSpan> span(String queryId) {
    return Optional.ofNullable(byQuery.get(queryId));
  }

  public Set<String> queryIds() {
    return byQuery.keySet();
  }

  public boolean isEmpty() {
    return byQuery.isEmpty();
  }

  public int size() {
    return byQuery.size();
  }

  @Override
  public boolean equals(Object other) {
    return other instanceof SpanQrels that && byQuery.equals(that.byQuery);
  }

  @Override
  public int hashCode() {
    return byQuery.hashCode();
  }

  @Override
  public String toString() {
    return "SpanQrels[" + byQuery.size() + " queries]";
  }
}
