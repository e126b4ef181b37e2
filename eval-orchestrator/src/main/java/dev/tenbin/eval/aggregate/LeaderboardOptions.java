package dev.tenbin.eval.aggregate;

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
    List<ParityRecord> parity) {
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
  }

  /**
   * nDCG@10, macro, every cell, 2,000 task draws, 10,000 model draws, seed 42, no official ranking,
   * paired tests with 10,000 randomization draws and Holm's correction.
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
        List.of());
  }

  public LeaderboardOptions withMetric(String value) {
    return new LeaderboardOptions(
        value,
        aggregate,
        scope,
        bootstrapDraws,
        correlationResamples,
        seed,
        official,
        permutations,
        correction,
        price,
        parity);
  }

  public LeaderboardOptions withAggregate(Aggregate value) {
    return new LeaderboardOptions(
        metric,
        value,
        scope,
        bootstrapDraws,
        correlationResamples,
        seed,
        official,
        permutations,
        correction,
        price,
        parity);
  }

  public LeaderboardOptions withScope(Scope value) {
    return new LeaderboardOptions(
        metric,
        aggregate,
        value,
        bootstrapDraws,
        correlationResamples,
        seed,
        official,
        permutations,
        correction,
        price,
        parity);
  }

  public LeaderboardOptions withBootstrapDraws(int value) {
    return new LeaderboardOptions(
        metric,
        aggregate,
        scope,
        value,
        correlationResamples,
        seed,
        official,
        permutations,
        correction,
        price,
        parity);
  }

  public LeaderboardOptions withCorrelationResamples(int value) {
    return new LeaderboardOptions(
        metric,
        aggregate,
        scope,
        bootstrapDraws,
        value,
        seed,
        official,
        permutations,
        correction,
        price,
        parity);
  }

  public LeaderboardOptions withSeed(long value) {
    return new LeaderboardOptions(
        metric,
        aggregate,
        scope,
        bootstrapDraws,
        correlationResamples,
        value,
        official,
        permutations,
        correction,
        price,
        parity);
  }

  public LeaderboardOptions withOfficial(OfficialRanking value) {
    return new LeaderboardOptions(
        metric,
        aggregate,
        scope,
        bootstrapDraws,
        correlationResamples,
        seed,
        value,
        permutations,
        correction,
        price,
        parity);
  }

  public LeaderboardOptions withPermutations(int value) {
    return new LeaderboardOptions(
        metric,
        aggregate,
        scope,
        bootstrapDraws,
        correlationResamples,
        seed,
        official,
        value,
        correction,
        price,
        parity);
  }

  public LeaderboardOptions withCorrection(Correction value) {
    return new LeaderboardOptions(
        metric,
        aggregate,
        scope,
        bootstrapDraws,
        correlationResamples,
        seed,
        official,
        permutations,
        value,
        price,
        parity);
  }

  public LeaderboardOptions withPrice(Price value) {
    return new LeaderboardOptions(
        metric,
        aggregate,
        scope,
        bootstrapDraws,
        correlationResamples,
        seed,
        official,
        permutations,
        correction,
        value,
        parity);
  }

  public LeaderboardOptions withParity(List<ParityRecord> value) {
    return new LeaderboardOptions(
        metric,
        aggregate,
        scope,
        bootstrapDraws,
        correlationResamples,
        seed,
        official,
        permutations,
        correction,
        price,
        value);
  }
}
