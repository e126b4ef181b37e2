package dev.tenbin.eval.result;

import java.util.Map;

/**
 * A cell's measured phases ({@link Timing}), each counted once: the shared indexing ({@code
 * index_ms}, which holds the documents' encode, so {@code document_encode_ms} is never added to
 * it), the variant's own indexing ({@code variant_index_ms}), the queries' encode, the search and
 * the rerank. What {@code export mteb} writes as {@code evaluation_time} and what the leaderboard's
 * cost of indexing reads.
 *
 * @param indexMs documents encoded and ingested, shared by a run's variants; null when not timed
 * @param variantIndexMs what the index built for this variant before its first search; null in
 *     cells stored before it was measured (their {@code search_ms} holds it) and for families
 *     without variants of an index
 * @param documentEncodeMs the documents' encode, part of {@code indexMs}; 0 when not timed
 * @param queryEncodeMs the queries' encode; 0 when not timed
 * @param searchMs the queries' search; 0 when not timed
 * @param rerankMs the rerank; 0 when not timed
 */
public record PhaseTimings(
    Double indexMs,
    Double variantIndexMs,
    double documentEncodeMs,
    double queryEncodeMs,
    double searchMs,
    double rerankMs) {

  /** The phases of a stored cell's or a result's timings (key to value, as {@link Timings}). */
  public static PhaseTimings of(Map<String, Double> timings) {
    Map<String, Double> known = timings == null ? Map.of() : timings;
    return new PhaseTimings(
        known.get(Timing.INDEX_MS.key()),
        known.get(Timing.VARIANT_INDEX_MS.key()),
        known.getOrDefault(Timing.DOCUMENT_ENCODE_MS.key(), 0.0),
        known.getOrDefault(Timing.QUERY_ENCODE_MS.key(), 0.0),
        known.getOrDefault(Timing.SEARCH_MS.key(), 0.0),
        known.getOrDefault(Timing.RERANK_MS.key(), 0.0));
  }

  /**
   * The time to index the collection for this variant: the shared indexing plus the variant's own
   * (none in cells stored before it was measured); null when the indexing was not timed.
   */
  public Double indexingMs() {
    return indexMs == null ? null : indexMs + (variantIndexMs == null ? 0 : variantIndexMs);
  }

  /** Every phase once: indexing (documents' encode included), queries' encode, search, rerank. */
  public double evaluationMs() {
    Double indexing = indexingMs();
    return (indexing == null ? 0 : indexing) + queryEncodeMs + searchMs + rerankMs;
  }
}
