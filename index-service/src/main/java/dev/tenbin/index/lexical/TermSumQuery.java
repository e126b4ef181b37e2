package dev.tenbin.index.lexical;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.Term;
import org.apache.lucene.search.DocIdSetIterator;
import org.apache.lucene.search.Explanation;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.QueryVisitor;
import org.apache.lucene.search.ScoreMode;
import org.apache.lucene.search.Scorer;
import org.apache.lucene.search.ScorerSupplier;
import org.apache.lucene.search.TermQuery;
import org.apache.lucene.search.Weight;

/**
 * The bag-of-words BM25 query of {@link BagOfWordsQuery} without Lucene's clause limit ({@link
 * IndexSearcher#getMaxClauseCount()}, 1,024 by default), for queries of more distinct terms than a
 * {@code BooleanQuery} may hold (argument retrieval, query by document).
 *
 * <p>It scores as the {@code BooleanQuery} of SHOULD clauses {@code BoostQuery(TermQuery(t),
 * count(t))} would: each term's score is Lucene's own (the same {@code TermQuery} weight, boost,
 * similarity and statistics), a document matching no term is not a hit, and a hit's score is the
 * sum of its terms' scores accumulated in a {@code double} and rounded to {@code float} once, as
 * Lucene's disjunction scorers sum. The order of that sum may differ from a {@code BooleanQuery}'s
 * (which depends on its scorer), so the two agree up to the rounding of a {@code double} sum before
 * it becomes a {@code float}: identical in practice, since a float has 29 bits fewer than the
 * double the sum is kept in.
 *
 * <p>It is a plain doc-at-a-time disjunction (a heap of the terms' postings), without the block-max
 * skipping of a {@code BooleanQuery}: used only above the clause limit. For Lucene's clause count
 * it is one clause (as {@code TermInSetQuery} is), whatever its number of terms.
 */
final class TermSumQuery extends Query {
  private final String field;
  private final Term[] terms;
  private final float[] boosts;

  /** {@code counts}: each analysed term and the boost of its clause (its count in the query). */
  TermSumQuery(String field, Map<String, Integer> counts) {
    this.field = field;
    this.terms = new Term[counts.size()];
    this.boosts = new float[counts.size()];
    int i = 0;
    for (Map.Entry<String, Integer> entry : counts.entrySet()) {
      terms[i] = new Term(field, entry.getKey());
      boosts[i] = entry.getValue().floatValue();
      i++;
    }
  }

  /** Distinct terms. */
  int terms() {
    return terms.length;
  }

  @Override
  public Weight createWeight(IndexSearcher searcher, ScoreMode scoreMode, float boost)
      throws IOException {
    Weight[] weights = new Weight[terms.length];
    for (int i = 0; i < terms.length; i++) {
      // As BooleanWeight creates a BoostQuery(TermQuery) clause's weight: boost × the clause's.
      weights[i] = new TermQuery(terms[i]).createWeight(searcher, scoreMode, boosts[i] * boost);
    }
    return new SumWeight(this, weights);
  }

  @Override
  public void visit(QueryVisitor visitor) {
    if (visitor.acceptField(field)) {
      visitor
          .getSubVisitor(org.apache.lucene.search.BooleanClause.Occur.SHOULD, this)
          .consumeTerms(this, terms);
    }
  }

  @Override
  public String toString(String defaultField) {
    return "TermSumQuery(" + terms.length + " terms of " + field + ")";
  }

  @Override
  public boolean equals(Object other) {
    return sameClassAs(other)
        && field.equals(((TermSumQuery) other).field)
        && Arrays.equals(terms, ((TermSumQuery) other).terms)
        && Arrays.equals(boosts, ((TermSumQuery) other).boosts);
  }

  @Override
  public int hashCode() {
    return Objects.hash(classHash(), field, Arrays.hashCode(terms), Arrays.hashCode(boosts));
  }

  private static final class SumWeight extends Weight {
    private final Weight[] weights;

    SumWeight(Query query, Weight[] weights) {
      super(query);
      this.weights = weights;
    }

    @Override
    public ScorerSupplier scorerSupplier(LeafReaderContext context) throws IOException {
      List<Scorer> scorers = new ArrayList<>();
      long cost = 0;
      for (Weight weight : weights) {
        ScorerSupplier supplier = weight.scorerSupplier(context);
        if (supplier != null) {
          cost += supplier.cost();
          scorers.add(supplier.get(Long.MAX_VALUE));
        }
      }
      if (scorers.isEmpty()) {
        return null;
      }
      long total = cost;
      return new ScorerSupplier() {
        @Override
        public Scorer get(long leadCost) {
          return new SumScorer(scorers.toArray(new Scorer[0]), total);
        }

        @Override
        public long cost() {
          return total;
        }
      };
    }

    @Override
    public Explanation explain(LeafReaderContext context, int doc) throws IOException {
      List<Explanation> matched = new ArrayList<>();
      double sum = 0;
      for (Weight weight : weights) {
        Explanation term = weight.explain(context, doc);
        if (term.isMatch()) {
          matched.add(term);
          sum += term.getValue().floatValue();
        }
      }
      return matched.isEmpty()
          ? Explanation.noMatch("no term matched")
          : Explanation.match((float) sum, "sum of:", matched);
    }

    /** Never cached: the query cache serves filters, and a query of a thousand terms is none. */
    @Override
    public boolean isCacheable(LeafReaderContext context) {
      return false;
    }
  }

  /**
   * The union of the terms' postings, doc at a time: a min-heap of the terms' scorers by their
   * current document; a document's score sums those positioned on it.
   */
  private static final class SumScorer extends Scorer {
    private final Scorer[] scorers;
    private final DocIdSetIterator[] postings;
    private final long cost;

    /** Indices into {@link #scorers}, a min-heap by their postings' current document. */
    private final int[] heap;

    private final int[] onDoc;
    private int doc = -1;

    SumScorer(Scorer[] scorers, long cost) {
      this.scorers = scorers;
      this.cost = cost;
      this.postings = new DocIdSetIterator[scorers.length];
      this.heap = new int[scorers.length];
      this.onDoc = new int[scorers.length];
      for (int i = 0; i < scorers.length; i++) {
        postings[i] = scorers[i].iterator();
        heap[i] = i;
      }
      // Every iterator starts at -1: already a heap.
    }

    @Override
    public int docID() {
      return doc;
    }

    @Override
    public float score() throws IOException {
      int count = collect(0, 0);
      double sum = 0;
      for (int i = 0; i < count; i++) {
        sum += scorers[onDoc[i]].score();
      }
      return (float) sum;
    }

    /** Gathers into {@link #onDoc} the heap entries from {@code node} down positioned on doc. */
    private int collect(int node, int count) {
      if (node >= heap.length || postings[heap[node]].docID() != doc) {
        return count;
      }
      onDoc[count++] = heap[node];
      count = collect(2 * node + 1, count);
      return collect(2 * node + 2, count);
    }

    @Override
    public float getMaxScore(int upTo) {
      return Float.POSITIVE_INFINITY;
    }

    @Override
    public DocIdSetIterator iterator() {
      return new DocIdSetIterator() {
        @Override
        public int docID() {
          return doc;
        }

        @Override
        public int nextDoc() throws IOException {
          return advance(doc + 1);
        }

        @Override
        public int advance(int target) throws IOException {
          while (postings[heap[0]].docID() < target) {
            postings[heap[0]].advance(target);
            siftDown(0);
          }
          doc = postings[heap[0]].docID();
          return doc;
        }

        @Override
        public long cost() {
          return cost;
        }
      };
    }

    private void siftDown(int node) {
      int entry = heap[node];
      int at = postings[entry].docID();
      while (true) {
        int child = 2 * node + 1;
        if (child >= heap.length) {
          break;
        }
        if (child + 1 < heap.length
            && postings[heap[child + 1]].docID() < postings[heap[child]].docID()) {
          child++;
        }
        if (postings[heap[child]].docID() >= at) {
          break;
        }
        heap[node] = heap[child];
        node = child;
      }
      heap[node] = entry;
    }
  }
}
