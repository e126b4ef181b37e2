package dev.tenbin.eval.aggregate;

import dev.tenbin.eval.job.Price;
import dev.tenbin.eval.nano.NanoFidelityRecord;
import dev.tenbin.eval.parity.ParityRecord;
import dev.tenbin.scoring.stats.MultipleTesting.Correction;
import java.util.List;

/**
 * What a leaderboard ranks by, over which cells, and how its uncertainty is estimated.
 *
 * @param metric the metric a cell's score is (× 100), e.g. "ndcg@10"
 * @param aggregate the aggregate rows are ranked by
 * @param scope the cells covered
 * @param bootstrapDraws task resamples for score intervals and swap probabilities (0: none)
 * @param correlationResamples model resamples for the correlation intervals
 * @param seed the seed of both bootstraps
 * @param official a published ranking to correlate with, or null
 * @param permutations randomization draws of the paired tests ({@link PairedComparisons}); 0: no
 *     paired tests
 * @param correction how the paired tests' p-values are corrected across the pairs compared
 * @param price what an hour of CPU and of GPU costs, for the cost columns; null: no costs
 * @param parity the serving-parity certificates the jobs keep, shown with the leaderboard
 * @param measures the cells measured again at chosen cut-offs ({@link ChosenMeasures}); null: none
 * @param nanoFidelity the Nano-set fidelity records the jobs keep, shown beside their tasks
 */
public record LeaderboardOptions(
    String metric,
    Aggregate aggregate,
    Scope scope,
    int bootstrapDraws,
    int correlationResamples,
    long seed,
    OfficialRanking official,
    int permutations,
    Correction correction,
    Price price,
    List<ParityRecord> parity,
    ChosenMeasures measures,
    List<NanoFidelityRecord> nanoFidelity) {
  public static final String DEFAULT_METRIC = "ndcg@10";
  public static final int DEFAULT_BOOTSTRAP_DRAWS = 2_000;
  public static final int DEFAULT_CORRELATION_RESAMPLES = 10_000;
  public static final long DEFAULT_SEED = 42;

  public LeaderboardOptions {
    if (metric == null || metric.isBlank()) {
      throw new IllegalArgumentException("metric must be named");
    }
    if (bootstrapDraws < 0 || correlationResamples < 0 || permutations < 0) {
      throw new IllegalArgumentException("resample counts must be >= 0");
    }
    aggregate = aggregate == null ? Aggregate.MACRO : aggregate;
    scope = scope == null ? Scope.ALL : scope;
    correction = correction == null ? Correction.HOLM : correction;
    parity = parity == null ? List.of() : List.copyOf(parity);
    nanoFidelity = nanoFidelity == null ? List.of() : List.copyOf(nanoFidelity);
  }

  /**
   * nDCG@10, macro, every cell, 2,000 task draws, 10,000 model draws, seed 42, no official ranking,
   * paired tests with 10,000 randomization draws and Holm's correction, no price, no parity
   * certificates, no chosen measures, no Nano-set fidelity records.
   */
  public static LeaderboardOptions defaults() {
    return new LeaderboardOptions(
        DEFAULT_METRIC,
        Aggregate.MACRO,
        Scope.ALL,
        DEFAULT_BOOTSTRAP_DRAWS,
        DEFAULT_CORRELATION_RESAMPLES,
        DEFAULT_SEED,
        null,
        PairedComparisons.DEFAULT_PERMUTATIONS,
        Correction.HOLM,
        null,
        List.of(),
        null,
        List.of());
  }

  public LeaderboardOptions withMetric(String value) {
    return with(b -> b.metric = value);
  }

  public LeaderboardOptions withAggregate(Aggregate value) {
    return with(b -> b.aggregate = value);
  }

  public LeaderboardOptions withScope(Scope value) {
    return with(b -> b.scope = value);
  }

  public LeaderboardOptions withBootstrapDraws(int value) {
    return with(b -> b.bootstrapDraws = value);
  }

  public LeaderboardOptions withCorrelationResamples(int value) {
    return with(b -> b.correlationResamples = value);
  }

  public LeaderboardOptions withSeed(long value) {
    return with(b -> b.seed = value);
  }

  public LeaderboardOptions withOfficial(OfficialRanking value) {
    return with(b -> b.official = value);
  }

  public LeaderboardOptions withPermutations(int value) {
    return with(b -> b.permutations = value);
  }

  public LeaderboardOptions withCorrection(Correction value) {
    return with(b -> b.correction = value);
  }

  public LeaderboardOptions withPrice(Price value) {
    return with(b -> b.price = value);
  }

  public LeaderboardOptions withParity(List<ParityRecord> value) {
    return with(b -> b.parity = value);
  }

  public LeaderboardOptions withMeasures(ChosenMeasures value) {
    return with(b -> b.measures = value);
  }

  public LeaderboardOptions withNanoFidelity(List<NanoFidelityRecord> value) {
    return with(b -> b.nanoFidelity = value);
  }

  /** These options with one component changed by {@code change}. */
  private LeaderboardOptions with(java.util.function.Consumer<Fields> change) {
    Fields fields = new Fields(this);
    change.accept(fields);
    return new LeaderboardOptions(
        fields.metric,
        fields.aggregate,
        fields.scope,
        fields.bootstrapDraws,
        fields.correlationResamples,
        fields.seed,
        fields.official,
        fields.permutations,
        fields.correction,
        fields.price,
        fields.parity,
        fields.measures,
        fields.nanoFidelity);
  }

  /** The components, as a mutable copy for {@link #with}. */
  private static final class Fields {
    String metric;
    Aggregate aggregate;
    Scope scope;
    int bootstrapDraws;
    int correlationResamples;
    long seed;
    OfficialRanking official;
    int permutations;
    Correction correction;
    Price price;
    List<ParityRecord> parity;
    ChosenMeasures measures;
    List<NanoFidelityRecord> nanoFidelity;

    Fields(LeaderboardOptions options) {
      metric = options.metric;
      aggregate = options.aggregate;
      scope = options.scope;
      bootstrapDraws = options.bootstrapDraws;
      correlationResamples = options.correlationResamples;
      seed = options.seed;
      official = options.official;
      permutations = options.permutations;
      correction = options.correction;
      price = options.price;
      parity = options.parity;
      measures = options.measures;
      nanoFidelity = options.nanoFidelity;
    }
  }
}
