package dev.tenbin.bench.compare;

import dev.tenbin.proto.common.v1.ScoredDocument;
import java.util.List;
import java.util.Locale;

/**
 * The check a side-by-side bench makes before it times anything: a gRPC path returns what the
 * in-process core returns, the same ids in the same order with bit-identical scores, else the
 * comparison would not be fair.
 */
public final class SameHits {
  private SameHits() {}

  /**
   * Fails unless {@code grpc}, the hits of query {@code query} over the gRPC path named {@code
   * path}, are {@code inProcess}: the same ids in the same order with bit-identical scores (ranks
   * are not compared).
   */
  public static void require(
      int query, String path, List<ScoredDocument> inProcess, List<ScoredDocument> grpc) {
    int first = -1;
    for (int i = 0; first < 0 && i < Math.min(inProcess.size(), grpc.size()); i++) {
      if (!inProcess.get(i).getDocId().equals(grpc.get(i).getDocId())
          || Float.compare(inProcess.get(i).getScore(), grpc.get(i).getScore()) != 0) {
        first = i;
      }
    }
    if (first < 0 && inProcess.size() == grpc.size()) {
      return;
    }
    String where =
        first < 0
            ? ""
            : String.format(
                Locale.ROOT,
                ", first at rank %d: %s %s in-process, %s %s over %s",
                first + 1,
                inProcess.get(first).getDocId(),
                Float.toString(inProcess.get(first).getScore()),
                grpc.get(first).getDocId(),
                Float.toString(grpc.get(first).getScore()),
                path);
    throw new IllegalStateException(
        "query "
            + query
            + ": the in-process and "
            + path
            + " paths returned different hits ("
            + inProcess.size()
            + " and "
            + grpc.size()
            + where
            + "); the comparison would not be fair");
  }

  /** A hit as the gRPC paths answer it, for in-process hits to be compared with. */
  public static ScoredDocument hit(String docId, float score) {
    return ScoredDocument.newBuilder().setDocId(docId).setScore(score).build();
  }
}
