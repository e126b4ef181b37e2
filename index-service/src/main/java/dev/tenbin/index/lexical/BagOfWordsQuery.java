package dev.tenbin.index.lexical;

import dev.tenbin.core.InvalidInputException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.lucene.analysis.Analyzer;
import org.apache.lucene.analysis.TokenStream;
import org.apache.lucene.analysis.tokenattributes.CharTermAttribute;
import org.apache.lucene.index.Term;
import org.apache.lucene.search.BooleanClause;
import org.apache.lucene.search.BooleanQuery;
import org.apache.lucene.search.BoostQuery;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.TermQuery;

/**
 * Builds a BM25 query as Anserini's BagOfWordsQueryGenerator: the analysed query terms, each a
 * SHOULD clause boosted by how many times it occurs in the query. A query of more distinct terms
 * than a {@code BooleanQuery} may hold ({@link IndexSearcher#getMaxClauseCount()}) becomes a {@link
 * TermSumQuery}, which scores as that {@code BooleanQuery} would without the limit.
 */
public final class BagOfWordsQuery {
  /**
   * The most distinct analysed terms one query may have: 16 times Lucene's clause limit, more than
   * an argument or a whole document used as a query has, while the work a query asks for stays
   * bounded (one term lookup per term and segment, one posting list each). More is refused
   * (INVALID_ARGUMENT naming {@code text}), never cut.
   */
  public static final int MAX_TERMS = 16_384;

  private BagOfWordsQuery() {}

  /** Analysed terms of {@code text} with their counts, in first-occurrence order. */
  public static Map<String, Integer> termCounts(Analyzer analyzer, String field, String text) {
    Map<String, Integer> counts = new LinkedHashMap<>();
    try (TokenStream stream = analyzer.tokenStream(field, text)) {
      CharTermAttribute term = stream.addAttribute(CharTermAttribute.class);
      stream.reset();
      while (stream.incrementToken()) {
        counts.merge(term.toString(), 1, Integer::sum);
      }
      stream.end();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return counts;
  }

  /**
   * The boolean query, a {@link TermSumQuery} past the clause limit, or {@code null} when analysis
   * leaves no term.
   *
   * @throws InvalidInputException naming {@code text} when the text has more than {@link
   *     #MAX_TERMS} distinct terms
   */
  public static Query build(Analyzer analyzer, String field, String text) {
    Map<String, Integer> counts = termCounts(analyzer, field, text);
    if (counts.isEmpty()) {
      return null;
    }
    if (counts.size() > MAX_TERMS) {
      throw InvalidInputException.tooLarge(
          "text",
          "a BM25 query may have at most "
              + MAX_TERMS
              + " distinct terms after analysis, this one has "
              + counts.size());
    }
    if (counts.size() > IndexSearcher.getMaxClauseCount()) {
      return new TermSumQuery(field, counts);
    }
    BooleanQuery.Builder builder = new BooleanQuery.Builder();
    counts.forEach(
        (term, count) ->
            builder.add(
                new BoostQuery(new TermQuery(new Term(field, term)), count.floatValue()),
                BooleanClause.Occur.SHOULD));
    return builder.build();
  }
}
