package dev.tenbin.eval.nano;

import dev.tenbin.scoring.beir.BeirDataset;
import java.util.List;
import java.util.Map;

/**
 * Ranks a collection's documents for queries, so that the best-ranked non-positive documents become
 * a Nano-set's mined hard negatives. {@link RetrievalMiners} runs the project's BM25 and dense
 * retrieval through the services; tests give a fixed ranking.
 */
public interface HardNegativeMiner {
  /** The miner's name as {@code --miners} gives it, e.g. "bm25" or "dense:bge-small-en-v1.5". */
  String name();

  /**
   * The ranking of every query of {@code dataset.evaluatedQueryIds()} over its whole corpus: up to
   * {@code depth} document ids, best first.
   */
  Map<String, List<String>> rank(BeirDataset dataset, int depth);

  /**
   * What identifies the miner's rankings, recorded in {@code nano.json} after {@link #rank}: model
   * id, revision and resolved SHA for a dense model, analyzer language for BM25.
   */
  Map<String, String> facts();
}
