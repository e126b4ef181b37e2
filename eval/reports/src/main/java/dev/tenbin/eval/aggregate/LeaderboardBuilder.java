package dev.tenbin.eval.aggregate;

import dev.tenbin.eval.store.CellRecord;
import dev.tenbin.eval.store.QueryBootstrap;
import dev.tenbin.eval.store.TaskRef;
import dev.tenbin.scoring.stats.Borda;
import dev.tenbin.scoring.stats.CompetitionRanks;
import dev.tenbin.scoring.stats.Interval;
import dev.tenbin.scoring.stats.RankInterval;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Computes a {@link Leaderboard}: aggregates, complete-model rule, ranks, Borda, deltas, bootstraps
 * (over tasks from {@link Leaderboard#MIN_TASKS_FOR_TASK_BOOTSTRAP} tasks, over the queries of each
 * task below; score intervals, swap probabilities and rank intervals), statistically tied groups,
 * the paired tests of every task and the Bradley–Terry view of per-query wins.
 */
final class LeaderboardBuilder {
  private LeaderboardBuilder() {}

  static Leaderboard build(List<CellRecord> cells, LeaderboardOptions options) {
    ScoreMatrix matrix = ScoreMatrix.of(cells, options.metric(), options.scope());
    Aggregate aggregate = options.aggregate();
    List<RowKey> complete = matrix.rows().stream().filter(matrix::complete).toList();

    double[] chosen =
        complete.stream()
            .mapToDouble(row -> aggregate.of(matrix.tasks(), t -> matrix.score(row, t)))
            .toArray();
    int[] ranks = CompetitionRanks.of(chosen);
    double[][] perTask =
        complete.stream()
            .map(row -> matrix.tasks().stream().mapToDouble(t -> matrix.score(row, t)).toArray())
            .toArray(double[][]::new);
    double[] borda = Borda.of(perTask);
    Map<RowKey, Integer> rankOf = new HashMap<>();
    Map<RowKey, Double> bordaOf = new HashMap<>();
    for (int i = 0; i < complete.size(); i++) {
      rankOf.put(complete.get(i), ranks[i]);
      bordaOf.put(complete.get(i), borda[i]);
    }
    List<RowKey> rankOrder =
        complete.stream()
            .sorted(Comparator.comparing((RowKey r) -> rankOf.get(r)).thenComparing(RowKey.ORDER))
            .toList();
    Leaderboard.IntervalSource source = Leaderboard.intervalSource(matrix.tasks().size());
    TaskBootstrap.Result bootstrap =
        options.bootstrapDraws() > 0
                && !rankOrder.isEmpty()
                && source == Leaderboard.IntervalSource.TASKS
            ? TaskBootstrap.run(
                matrix, rankOrder, aggregate, options.bootstrapDraws(), options.seed())
            : TaskBootstrap.Result.NONE;

    Map<RowKey, Interval> queryIntervals = new HashMap<>();
    Map<RowKey, Double> swaps = new HashMap<>(bootstrap.swapWithNext());
    Map<RowKey, RankInterval> rankIntervals = new HashMap<>(bootstrap.ranks());
    if (source == Leaderboard.IntervalSource.QUERIES && !rankOrder.isEmpty()) {
      QueryStrataBootstrap.Result byQueries =
          options.bootstrapDraws() > 0
              ? QueryStrataBootstrap.run(
                  matrix, rankOrder, aggregate, options.bootstrapDraws(), options.seed())
              : null;
      if (matrix.tasks().size() == 1) {
        // one task: the interval its cell stored (QueryBootstrap), the same on every report
        TaskRef task = matrix.tasks().getFirst();
        for (RowKey row : rankOrder) {
          Interval interval =
              QueryBootstrap.of(matrix.cell(row, task).orElseThrow()).get(options.metric());
          if (interval != null) {
            queryIntervals.put(row, new Interval(100 * interval.low(), 100 * interval.high()));
          }
        }
      } else if (byQueries != null) {
        queryIntervals.putAll(byQueries.intervals());
      }
      if (byQueries != null) {
        swaps.putAll(byQueries.swapWithNext());
        rankIntervals.putAll(byQueries.ranks());
      }
    }
    Map<RowKey, String> groups =
        StatisticalGroups.of(
            rankOrder,
            row ->
                switch (source) {
                  case TASKS ->
                      aggregate == Aggregate.MICRO
                          ? bootstrap.micro().get(row)
                          : bootstrap.macro().get(row);
                  case QUERIES -> queryIntervals.get(row);
                  case NONE -> null;
                });
    PairedComparisons paired =
        options.permutations() > 0 && !rankOrder.isEmpty()
            ? PairedComparisons.of(
                matrix, rankOrder, options.correction(), options.permutations(), options.seed())
            : null;
    List<LeaderboardRow> rows = new ArrayList<>();
    for (RowKey key : matrix.rows()) {
      List<TaskRef> covered = matrix.covered(key);
      Map<TaskRef, Double> tieRanges = new LinkedHashMap<>();
      covered.forEach(t -> tieRanges.put(t, matrix.tieRange(key, t)));
      rows.add(
          new LeaderboardRow(
              key,
              RowFacts.of(matrix.cells(key)),
              matrix.scores(key),
              tieRanges,
              Aggregate.benchmarkScores(covered, t -> matrix.score(key, t)),
              Aggregate.MICRO.of(covered, t -> matrix.score(key, t)),
              Aggregate.MACRO.of(covered, t -> matrix.score(key, t)),
              covered.size(),
              matrix.tasks().size(),
              rankOf.get(key),
              bordaOf.get(key),
              delta(matrix, key),
              bootstrap.micro().get(key),
              bootstrap.macro().get(key),
              swaps.get(key),
              queryIntervals.get(key),
              groups.get(key),
              rankIntervals.get(key)));
    }
    rows.sort(displayOrder(aggregate));
    OfficialCorrelation correlation = null;
    if (options.official() != null) {
      List<OfficialCorrelation.Scored> scored =
          rows.stream()
              .filter(LeaderboardRow::complete)
              .map(r -> new OfficialCorrelation.Scored(r.key(), r.score(aggregate)))
              .toList();
      correlation =
          OfficialCorrelation.compute(
              options.official(), scored, options.correlationResamples(), options.seed());
    }
    PairwisePreference preference =
        PairwisePreference.of(matrix, rankOrder, options.bootstrapDraws(), options.seed());
    return new Leaderboard(options, matrix, List.copyOf(rows), correlation, paired, preference);
  }

  private static Comparator<LeaderboardRow> displayOrder(Aggregate aggregate) {
    return Comparator.comparing((LeaderboardRow r) -> !r.complete())
        .thenComparing(r -> r.rank() == null ? Integer.MAX_VALUE : r.rank())
        .thenComparing(LeaderboardRow::covered, Comparator.reverseOrder())
        .thenComparing(r -> r.score(aggregate), Comparator.reverseOrder())
        .thenComparing(LeaderboardRow::key, RowKey.ORDER);
  }

  private static BaseDelta delta(ScoreMatrix matrix, RowKey row) {
    RowKey base = row.base();
    if (!matrix.rows().contains(base)) {
      return null;
    }
    List<TaskRef> shared = matrix.covered(row).stream().filter(t -> matrix.has(base, t)).toList();
    if (shared.isEmpty()) {
      return null;
    }
    Map<TaskRef, Double> tasks = new LinkedHashMap<>();
    shared.forEach(t -> tasks.put(t, matrix.score(row, t) - matrix.score(base, t)));
    return new BaseDelta(
        Aggregate.MICRO.of(shared, tasks::get),
        Aggregate.MACRO.of(shared, tasks::get),
        Aggregate.benchmarkScores(shared, tasks::get),
        tasks);
  }
}
