package dev.tenbin.eval.nano;

import dev.tenbin.scoring.beir.BeirDataset;
import java.util.List;
import java.util.Map;

/** A miner with fixed rankings, recording what it was asked. */
final class FixedMiner implements HardNegativeMiner {
  private final String name;
  private final Map<String, List<String>> rankings;
  int calls;
  List<String> askedQueries;
  int askedDepth;

  FixedMiner(String name, Map<String, List<String>> rankings) {
    this.name = name;
    this.rankings = rankings;
  }

  /** A miner that fails the test if it is asked to rank. */
  static FixedMiner unused(String name) {
    return new FixedMiner(name, null);
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public Map<String, List<String>> rank(BeirDataset dataset, int depth) {
    if (rankings == null) {
      throw new AssertionError("miner " + name + " should not have been asked to rank");
    }
    calls++;
    askedQueries = List.copyOf(dataset.evaluatedQueryIds());
    askedDepth = depth;
    return rankings;
  }

  @Override
  public Map<String, String> facts() {
    return Map.of("model_id", name, "model_revision", "rev-1");
  }
}
