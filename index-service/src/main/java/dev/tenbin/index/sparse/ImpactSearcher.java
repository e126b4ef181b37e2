package dev.tenbin.index.sparse;

import dev.tenbin.core.Cancellation;
import dev.tenbin.index.rank.OrdinalHit;
import dev.tenbin.index.rank.TopK;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Exact impact scoring over an inverted index of sparse document vectors: score(d) = Σ over the
 * query's terms of w_q(t) · w_d(t). Query-side and document-side max-active-dims pruning keep the
 * dims of largest |weight|; one inverted index is built per document pruning level from the one
 * stored ingest, so the whole q × d grid is evaluable. Terms are visited in ascending id order and
 * postings in document order, so scores are the same bytes on every run; ties by doc id.
 */
public final class ImpactSearcher {
  /** Postings of one term: documents ascending, their weights. */
  private record Postings(int[] docs, float[] weights) {}

  private final List<SparseDoc> docs;
  private final TopK topK;
  private final Map<Integer, Map<Integer, Postings>> indexes = new HashMap<>();

  public ImpactSearcher(List<SparseDoc> docs, int[] idOrder) {
    this.docs = docs;
    this.topK = new TopK(idOrder);
  }

  private synchronized Map<Integer, Postings> index(int maxDocumentDims) {
    return indexes.computeIfAbsent(
        maxDocumentDims,
        max -> {
          Map<Integer, List<float[]>> lists = new HashMap<>();
          for (int d = 0; d < docs.size(); d++) {
            SparseDoc doc = docs.get(d).pruned(max);
            for (int i = 0; i < doc.ids().length; i++) {
              lists
                  .computeIfAbsent(doc.ids()[i], t -> new ArrayList<>())
                  .add(new float[] {d, doc.weights()[i]});
            }
          }
          Map<Integer, Postings> index = new HashMap<>();
          lists.forEach(
              (term, list) -> {
                int[] ds = new int[list.size()];
                float[] ws = new float[list.size()];
                for (int i = 0; i < ds.length; i++) {
                  ds[i] = (int) list.get(i)[0];
                  ws[i] = list.get(i)[1];
                }
                index.put(term, new Postings(ds, ws));
              });
          return index;
        });
  }

  public List<OrdinalHit> search(
      SparseDoc query, int maxQueryDims, int maxDocumentDims, int k, Cancellation cancellation) {
    SparseDoc q = query.pruned(maxQueryDims);
    Map<Integer, Postings> index = index(maxDocumentDims);
    float[] scores = new float[docs.size()];
    boolean[] touched = new boolean[docs.size()];
    for (int i = 0; i < q.ids().length; i++) {
      cancellation.throwIfCancelled();
      Postings postings = index.get(q.ids()[i]);
      if (postings == null) {
        continue;
      }
      float weight = q.weights()[i];
      for (int p = 0; p < postings.docs().length; p++) {
        scores[postings.docs()[p]] += weight * postings.weights()[p];
        touched[postings.docs()[p]] = true;
      }
    }
    return topK.select(scores, touched, k);
  }
}
