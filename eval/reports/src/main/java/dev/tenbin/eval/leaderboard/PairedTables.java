package dev.tenbin.eval.leaderboard;

import dev.tenbin.eval.aggregate.Leaderboard;
import dev.tenbin.eval.aggregate.PairedComparisons;
import dev.tenbin.eval.aggregate.PairedComparisons.Pair;
import dev.tenbin.eval.aggregate.PairedComparisons.TaskComparisons;
import dev.tenbin.eval.aggregate.RowKey;
import dev.tenbin.scoring.stats.Interval;
import dev.tenbin.scoring.stats.PairedTest;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The paired tests of a leaderboard as plain-text tables, shared by the terminal and Markdown
 * reports: per task a title (queries, minimum detectable effect), the rows with their interval and
 * group, and the pairs with Δ, its interval and both p-values, raw and corrected. Up to {@value
 * #ALL_PAIRS_UP_TO_ROWS} rows a task lists every pair; beyond, the pairs of rows adjacent in the
 * task's order (every pair is in the JSON and in the correction's family either way). A task with
 * fewer than two rows with per-query values says it has no pair to test (a report where no task has
 * one shows {@link #noPairs} instead); a randomization p no draw reached reads {@code ≤ 1/(n+1)}, n
 * the draws.
 */
final class PairedTables {
  static final int ALL_PAIRS_UP_TO_ROWS = 6;

  record Table(List<String> header, List<Boolean> numeric, List<List<String>> rows) {}

  record Task(String title, Table rows, Table pairs, String note) {}

  private PairedTables() {}

  static List<Task> of(Leaderboard board) {
    PairedComparisons paired = board.paired();
    if (paired == null || !paired.hasPairs()) {
      return List.of();
    }
    String correction = paired.correction().wireName();
    List<Task> tasks = new ArrayList<>();
    for (TaskComparisons task : paired.tasks()) {
      String title =
          task.pairs().isEmpty()
              ? String.format(
                  Locale.ROOT,
                  "%s (%s): no pair to test (%s with per-query values)",
                  task.task().id(),
                  task.task().language(),
                  ReportText.count(task.rows().size(), "row"))
              : String.format(
                  Locale.ROOT,
                  "%s (%s): %s; MDE %s",
                  task.task().id(),
                  task.task().language(),
                  task.queries() + (task.queries() == 1 ? " query" : " queries"),
                  Numbers.score(task.detectableEffect()));
      List<List<String>> rows = new ArrayList<>();
      for (RowKey row : task.rows()) {
        Interval interval = task.intervals().get(row);
        rows.add(
            List.of(
                task.groups().get(row),
                row.id(),
                Numbers.score(task.scores().get(row)),
                interval == null ? Numbers.ABSENT : range(interval)));
      }
      Table rowTable =
          new Table(
              List.of("group", "row", paired.metric(), "95% CI (queries)"),
              List.of(false, false, true, true),
              rows);
      boolean all = task.rows().size() <= ALL_PAIRS_UP_TO_ROWS;
      List<List<String>> pairs = new ArrayList<>();
      for (Pair pair : task.pairs()) {
        if (!all && !adjacent(task.rows(), pair)) {
          continue;
        }
        pairs.add(
            List.of(
                pair.higher().id(),
                pair.lower().id(),
                Numbers.delta(pair.delta()),
                range(pair.deltaInterval()),
                pair.randomizationAtLimit()
                    ? atMost(paired.permutations())
                    : p(pair.randomizationP()),
                p(pair.randomizationAdjusted()),
                p(pair.tTestP()),
                p(pair.tTestAdjusted())));
      }
      Table pairTable =
          new Table(
              List.of(
                  "higher",
                  "lower",
                  "Δ",
                  "95% CI of Δ",
                  "p rand",
                  "p rand " + correction,
                  "p t",
                  "p t " + correction),
              List.of(false, false, true, true, true, true, true, true),
              pairs);
      List<String> notes = new ArrayList<>();
      if (!all) {
        notes.add("pairs of rows adjacent in this task's order shown; every pair is in the JSON");
      }
      List<Pair> identical = task.identicalPairs();
      if (!identical.isEmpty()) {
        notes.add(
            "identical rows (every per-query difference 0), left out of the MDE: "
                + String.join(
                    ", ",
                    identical.stream()
                        .map(pair -> pair.higher().id() + " = " + pair.lower().id())
                        .toList()));
      }
      if (!task.withoutQueries().isEmpty()) {
        notes.add(
            "left out, no per-query values stored: "
                + String.join(", ", task.withoutQueries().stream().map(RowKey::id).toList()));
      }
      tasks.add(new Task(title, rowTable, pairTable, String.join("; ", notes)));
    }
    return tasks;
  }

  /** What the paired tables show and how, in one paragraph. */
  static String explanation(PairedComparisons paired) {
    int pairs = paired.tasks().stream().mapToInt(t -> t.pairs().size()).sum();
    return String.format(
        Locale.ROOT,
        "Paired tests of %s on the queries both rows stored, two-sided: a randomization test (sign"
            + " flips of the per-query differences; exact up to %d queries, else %,d draws, seed %d)"
            + " and a t-test; Δ: mean difference ×100 with its t interval. p-values corrected by %s"
            + " across all %d pairs of %s. Group: rows the corrected randomization test does not"
            + " separate (α %s) from the best row not yet grouped share its letter; p rand ≤"
            + " 1/(n+1): none of the n draws reached the observed difference. MDE: the"
            + " difference ×100 a paired t-test at α %s detects with power %s on this task, from"
            + " the pooled standard deviation of the pairs' per-query differences, pairs of"
            + " identical rows (every difference 0) left out.",
        paired.metric(),
        PairedTest.EXACT_UP_TO,
        paired.permutations(),
        paired.seed(),
        paired.correction().label(),
        pairs,
        ReportText.count(paired.tasks().size(), "task"),
        number(paired.alpha()),
        number(paired.alpha()),
        number(paired.power()));
  }

  private static boolean adjacent(List<RowKey> rows, Pair pair) {
    return Math.abs(rows.indexOf(pair.higher()) - rows.indexOf(pair.lower())) == 1;
  }

  private static String range(Interval interval) {
    return Double.isNaN(interval.low())
        ? Numbers.ABSENT
        : String.format(Locale.ROOT, "%.2f–%.2f", interval.low(), interval.high());
  }

  /** What a sampled randomization test that no draw reached shows: "≤ 1/(draws + 1)". */
  static String atMost(int permutations) {
    return "≤ 1/" + (permutations + 1L);
  }

  /**
   * What a report says for a single system, in place of the paired tests: there is nothing to pair.
   */
  static String noPairs(PairedComparisons paired) {
    java.util.Set<String> without = new java.util.TreeSet<>();
    paired.tasks().forEach(task -> task.withoutQueries().forEach(row -> without.add(row.id())));
    return "Paired tests need two ranked rows with per-query values on a task; "
        + (without.isEmpty()
            ? "this report has one, so there is no pair."
            : "none here has two (no per-query values stored: "
                + String.join(", ", without)
                + ").");
  }

  /** p-values: 4 decimals, "<0.0001" below. */
  static String p(double value) {
    if (Double.isNaN(value)) {
      return Numbers.ABSENT;
    }
    return value < 1e-4 ? "<0.0001" : String.format(Locale.ROOT, "%.4f", value);
  }

  private static String number(double value) {
    return String.valueOf(value).replaceAll("0+$", "");
  }
}
