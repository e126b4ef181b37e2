package dev.tenbin.index.lexical;

import dev.tenbin.index.rank.Hit;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.ReaderUtil;
import org.apache.lucene.index.SortedDocValues;
import org.apache.lucene.index.StoredFields;
import org.apache.lucene.search.Collector;
import org.apache.lucene.search.CollectorManager;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.LeafCollector;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.Scorable;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.search.ScoreMode;
import org.apache.lucene.search.TopDocs;
import org.apache.lucene.search.TopScoreDocCollectorManager;
import org.apache.lucene.util.BytesRef;

/**
 * The top {@code k} hits of a query by score descending, ties by document id ascending (the bytes
 * of the id's UTF-8, as a Lucene sort on the id's doc values orders them) — the result of {@code
 * searcher.search(query, k, new Sort(FIELD_SCORE, new SortField(id, STRING)))}, hit for hit, at the
 * cost of a plain top-k by score.
 *
 * <p>A sort on the id keeps comparing ids while the queue fills, and each comparison across
 * segments looks the id up in the terms dictionary: about a third of a search's CPU. Here the
 * search runs in two passes instead, both with block-max WAND:
 *
 * <ol>
 *   <li>the top {@code k + 1} by score (Lucene's own order among ties, by internal doc number);
 *   <li>only when the {@code k + 1}-th shares the {@code k}-th score, so that documents left out
 *       may belong among the top {@code k} by id, every document with exactly that score (the
 *       scorer skips whatever scores lower).
 * </ol>
 *
 * Only those hits' ids are then read from the doc values, and sorted by score and id. A document
 * without an id doc value sorts before those with one among equal scores, then by doc number, as
 * the sort does; its id is read from the stored field.
 */
final class ScoreThenIdTopK {
  private ScoreThenIdTopK() {}

  static List<Hit> search(IndexSearcher searcher, Query query, int k, String idField)
      throws IOException {
    // One hit more than asked: the best document left out tells whether the k-th score is shared
    // beyond the top k, so the second pass runs only when it is. No total hit count is kept, so
    // block-max WAND may skip documents as soon as the queue is full (searcher.search(query, n)
    // first counts 1,000 hits exactly, whatever n, before it lets the scorer skip any).
    int wanted =
        Math.min(
            k == Integer.MAX_VALUE ? k : k + 1, Math.max(1, searcher.getIndexReader().maxDoc()));
    TopDocs top = searcher.search(query, new TopScoreDocCollectorManager(wanted, null, wanted));
    ScoreDoc[] found = top.scoreDocs;
    int kept = Math.min(k, found.length);
    List<Candidate> candidates = new ArrayList<>(kept);
    java.util.Set<Integer> inTop = new java.util.HashSet<>();
    for (ScoreDoc hit : java.util.Arrays.copyOf(found, kept)) {
      candidates.add(new Candidate(hit.doc, hit.score));
      inTop.add(hit.doc);
    }
    if (found.length > k && found[k].score == found[k - 1].score) {
      float last = found[k - 1].score;
      for (int doc : searcher.search(query, new ScoredExactly(last))) {
        if (!inTop.contains(doc)) {
          candidates.add(new Candidate(doc, last));
        }
      }
    }
    readIds(searcher, candidates, idField);
    candidates.sort(ORDER);
    List<Hit> hits = new ArrayList<>(Math.min(k, candidates.size()));
    for (Candidate candidate : candidates.subList(0, Math.min(k, candidates.size()))) {
      hits.add(new Hit(candidate.id, candidate.score));
    }
    return hits;
  }

  /**
   * Reads every candidate's id: in doc-number order, one doc-values iterator per segment moving
   * forward only (an iterator per candidate would decode the segment's doc-values blocks again for
   * each).
   */
  private static void readIds(IndexSearcher searcher, List<Candidate> candidates, String idField)
      throws IOException {
    List<Candidate> byDoc = new ArrayList<>(candidates);
    byDoc.sort(Comparator.comparingInt(c -> c.doc));
    List<LeafReaderContext> leaves = searcher.getIndexReader().leaves();
    StoredFields stored = null;
    LeafReaderContext leaf = null;
    SortedDocValues ids = null;
    for (Candidate candidate : byDoc) {
      if (leaf == null || candidate.doc >= leaf.docBase + leaf.reader().maxDoc()) {
        leaf = leaves.get(ReaderUtil.subIndex(candidate.doc, leaves));
        ids = leaf.reader().getSortedDocValues(idField);
      }
      if (ids != null && ids.advanceExact(candidate.doc - leaf.docBase)) {
        candidate.key = BytesRef.deepCopyOf(ids.lookupOrd(ids.ordValue()));
        candidate.id = candidate.key.utf8ToString();
      } else {
        stored = stored == null ? searcher.storedFields() : stored;
        candidate.id = stored.document(candidate.doc).get(idField);
      }
    }
  }

  /** Score descending; then the id's bytes ascending (missing first); then the doc number. */
  private static final Comparator<Candidate> ORDER =
      Comparator.comparingDouble((Candidate c) -> -c.score)
          .thenComparing(c -> c.key, Comparator.nullsFirst(Comparator.naturalOrder()))
          .thenComparingInt(c -> c.doc);

  private static final class Candidate {
    final int doc;
    final float score;
    BytesRef key;
    String id;

    Candidate(int doc, float score) {
      this.doc = doc;
      this.score = score;
    }
  }

  /**
   * Collects the documents whose score is exactly {@code score}; tells each scorer that nothing
   * below it competes, so block-max WAND skips the rest.
   */
  private record ScoredExactly(float score) implements CollectorManager<Tied, List<Integer>> {
    @Override
    public Tied newCollector() {
      return new Tied(score);
    }

    @Override
    public List<Integer> reduce(Collection<Tied> collectors) {
      List<Integer> docs = new ArrayList<>();
      collectors.forEach(collector -> docs.addAll(collector.docs));
      return docs;
    }
  }

  /** The collector of {@link ScoredExactly}: global doc numbers, in the order collected. */
  private static final class Tied implements Collector {
    private final float score;
    private final List<Integer> docs = new ArrayList<>();

    Tied(float score) {
      this.score = score;
    }

    @Override
    public ScoreMode scoreMode() {
      return ScoreMode.TOP_SCORES;
    }

    @Override
    public LeafCollector getLeafCollector(LeafReaderContext context) {
      int base = context.docBase;
      return new LeafCollector() {
        private Scorable scorer;

        @Override
        public void setScorer(Scorable scorer) throws IOException {
          this.scorer = scorer;
          scorer.setMinCompetitiveScore(score);
        }

        @Override
        public void collect(int doc) throws IOException {
          if (scorer.score() == score) {
            docs.add(base + doc);
          }
        }
      };
    }
  }
}
