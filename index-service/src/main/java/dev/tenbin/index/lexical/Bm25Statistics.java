package dev.tenbin.index.lexical;

import dev.tenbin.core.InvalidInputException;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The statistics BM25 scores with: the collection's (Lucene's {@code CollectionStatistics} of the
 * contents field) and its terms' ({@code TermStatistics}). A collection answers its own ({@link
 * Bm25Index#statistics}); the caller of a sharded collection sums its shards' ({@link #plus}) and
 * has every shard score with the sums, so that a document gets the score the whole collection would
 * give it.
 *
 * @param maxDocuments documents (maxDoc)
 * @param documentCount documents with a term in the field (docCount)
 * @param totalTermCount term occurrences in the field (sumTotalTermFreq)
 * @param totalDocumentFrequency sum of the field's terms' document frequencies (sumDocFreq)
 * @param terms per analysed term, its statistics
 */
public record Bm25Statistics(
    long maxDocuments,
    long documentCount,
    long totalTermCount,
    long totalDocumentFrequency,
    Map<String, Term> terms) {

  /**
   * One term's statistics.
   *
   * @param documentFrequency documents containing it
   * @param totalTermFrequency its occurrences
   */
  public record Term(long documentFrequency, long totalTermFrequency) {}

  public Bm25Statistics {
    terms = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(terms));
  }

  /** Statistics of no document. */
  public static Bm25Statistics empty() {
    return new Bm25Statistics(0, 0, 0, 0, Map.of());
  }

  /** The sums of this and {@code other}'s statistics: two shards as one collection. */
  public Bm25Statistics plus(Bm25Statistics other) {
    Map<String, Term> sum = new LinkedHashMap<>(terms);
    other.terms.forEach(
        (term, stats) ->
            sum.merge(
                term,
                stats,
                (a, b) ->
                    new Term(
                        a.documentFrequency() + b.documentFrequency(),
                        a.totalTermFrequency() + b.totalTermFrequency())));
    return new Bm25Statistics(
        maxDocuments + other.maxDocuments,
        documentCount + other.documentCount,
        totalTermCount + other.totalTermCount,
        totalDocumentFrequency + other.totalDocumentFrequency,
        sum);
  }

  /**
   * Checks statistics a client sent: what Lucene requires of them.
   *
   * @param field the request field they came in, for the error
   */
  public Bm25Statistics validated(String field) {
    if (documentCount < 1
        || maxDocuments < documentCount
        || totalDocumentFrequency < documentCount
        || totalTermCount < totalDocumentFrequency) {
      throw new InvalidInputException(
          field,
          field
              + " must have 1 <= document_count <= max_documents, document_count <="
              + " total_document_frequency <= total_term_count");
    }
    for (Map.Entry<String, Term> term : terms.entrySet()) {
      Term stats = term.getValue();
      if (stats.documentFrequency() < 1
          || stats.documentFrequency() > documentCount
          || stats.totalTermFrequency() < stats.documentFrequency()) {
        throw new InvalidInputException(
            field + ".terms",
            "term statistics need 1 <= document_frequency <= document_count and"
                + " total_term_frequency >= document_frequency");
      }
    }
    return this;
  }
}
