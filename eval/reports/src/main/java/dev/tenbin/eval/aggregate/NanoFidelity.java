package dev.tenbin.eval.aggregate;

import dev.tenbin.core.InvalidInputException;
import dev.tenbin.eval.store.CellRecord;
import dev.tenbin.eval.store.TaskRef;
import dev.tenbin.scoring.stats.Correlation;
import dev.tenbin.scoring.stats.Interval;
import dev.tenbin.scoring.stats.PairedTest;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Whether a Nano-set ranks systems as its full collection does: the same systems (system, variant
 * and mode) evaluated on both, compared by Kendall's τ-b and Spearman's ρ of their scores, the
 * share of system pairs both order the same way, the agreement of the top k, and per system the
 * difference Nano − full with its paired t interval over the queries both sets evaluated (a
 * Nano-set keeps its source's query ids; its corpus is smaller, so a query tends to score higher).
 *
 * @param nanoTask the Nano-set's task
 * @param fullTask the full collection's task
 * @param metric the metric compared
 * @param systems per system present on both, by full score (then row order)
 * @param kendallTau τ-b of the two score lists; NaN below 2 systems
 * @param spearman ρ of the two score lists; NaN below 2 systems
 * @param pairsAgreeing system pairs both sets order the same way (a tie on either side counts as
 *     disagreeing)
 * @param pairs all system pairs
 * @param topK the k of the top-k agreement
 * @param topKShared systems in both top-k lists
 */
public record NanoFidelity(
    TaskRef nanoTask,
    TaskRef fullTask,
    String metric,
    List<SystemFidelity> systems,
    double kendallTau,
    double spearman,
    int pairsAgreeing,
    int pairs,
    int topK,
    int topKShared) {

  /**
   * One system on both sets.
   *
   * @param row system, variant and mode
   * @param nano its Nano-set score × 100
   * @param full its full-collection score × 100
   * @param nanoRank its rank among the systems on the Nano-set (1 = best)
   * @param fullRank its rank on the full collection
   * @param sharedQueries queries both cells stored a value for
   * @param delta mean (Nano − full) × 100 over those queries
   * @param deltaInterval its 95% paired t interval × 100; null below 2 shared queries
   */
  public record SystemFidelity(
      RowKey row,
      double nano,
      double full,
      int nanoRank,
      int fullRank,
      int sharedQueries,
      double delta,
      Interval deltaInterval) {}

  /**
   * Compares the cells of one task of each job.
   *
   * @param nanoCells cells of the job run on the Nano-set
   * @param fullCells cells of the job run on the full collection
   * @param nanoTask the Nano-set task's name, or null when its job has one task
   * @param fullTask the full task's name, or null likewise
   * @param topK the k of the top-k agreement (capped at the number of systems)
   */
  public static NanoFidelity compare(
      List<CellRecord> nanoCells,
      List<CellRecord> fullCells,
      String nanoTask,
      String fullTask,
      String metric,
      int topK) {
    TaskRef nano = task(nanoCells, nanoTask, "--nano-task");
    TaskRef full = task(fullCells, fullTask, "--full-task");
    Map<RowKey, CellRecord> onNano = byRow(nanoCells, nano);
    Map<RowKey, CellRecord> onFull = byRow(fullCells, full);
    List<RowKey> rows = new ArrayList<>();
    for (RowKey row : onFull.keySet()) {
      if (onNano.containsKey(row)
          && onNano.get(row).metrics().get(metric) != null
          && onFull.get(row).metrics().get(metric) != null) {
        rows.add(row);
      }
    }
    if (rows.isEmpty()) {
      throw new InvalidInputException(
          "--nano", "no system has " + metric + " on both " + nano.id() + " and " + full.id());
    }
    rows.sort(
        Comparator.comparing((RowKey r) -> -onFull.get(r).metrics().get(metric))
            .thenComparing(RowKey.ORDER));
    double[] nanoScores =
        rows.stream().mapToDouble(r -> 100 * onNano.get(r).metrics().get(metric)).toArray();
    double[] fullScores =
        rows.stream().mapToDouble(r -> 100 * onFull.get(r).metrics().get(metric)).toArray();
    int[] nanoRanks = ranks(nanoScores);
    int[] fullRanks = ranks(fullScores);
    List<SystemFidelity> systems = new ArrayList<>();
    for (int i = 0; i < rows.size(); i++) {
      Map<String, Double> a = PerQueryValues.of(onNano.get(rows.get(i)), metric);
      Map<String, Double> b = PerQueryValues.of(onFull.get(rows.get(i)), metric);
      List<String> shared = PerQueryValues.shared(List.of(a, b));
      PairedTest test =
          PairedTest.of(
              PerQueryValues.values(a, shared), PerQueryValues.values(b, shared), 0.95, 1, 0);
      Interval interval =
          shared.size() < 2
              ? null
              : new Interval(
                  100 * test.differenceInterval().low(), 100 * test.differenceInterval().high());
      systems.add(
          new SystemFidelity(
              rows.get(i),
              nanoScores[i],
              fullScores[i],
              nanoRanks[i],
              fullRanks[i],
              shared.size(),
              shared.isEmpty() ? Double.NaN : 100 * test.meanDifference(),
              interval));
    }
    int agreeing = 0;
    int pairs = 0;
    for (int i = 0; i < rows.size(); i++) {
      for (int j = i + 1; j < rows.size(); j++) {
        pairs++;
        int onN = Double.compare(nanoScores[i], nanoScores[j]);
        int onF = Double.compare(fullScores[i], fullScores[j]);
        if (onN != 0 && onN == onF) {
          agreeing++;
        }
      }
    }
    int k = Math.max(1, Math.min(topK, rows.size()));
    Set<RowKey> topNano = new HashSet<>();
    Set<RowKey> topFull = new HashSet<>();
    for (int i = 0; i < rows.size(); i++) {
      if (nanoRanks[i] <= k) {
        topNano.add(rows.get(i));
      }
      if (fullRanks[i] <= k) {
        topFull.add(rows.get(i));
      }
    }
    topNano.retainAll(topFull);
    return new NanoFidelity(
        nano,
        full,
        metric,
        List.copyOf(systems),
        Correlation.kendall(nanoScores, fullScores),
        rows.size() < 2 ? Double.NaN : Correlation.spearman(nanoScores, fullScores),
        agreeing,
        pairs,
        k,
        topNano.size());
  }

  /** Competition ranks, best (highest) first: 1, 2, 2, 4. */
  private static int[] ranks(double[] scores) {
    int[] ranks = new int[scores.length];
    for (int i = 0; i < scores.length; i++) {
      int above = 0;
      for (double other : scores) {
        if (other > scores[i]) {
          above++;
        }
      }
      ranks[i] = above + 1;
    }
    return ranks;
  }

  private static TaskRef task(List<CellRecord> cells, String name, String field) {
    Set<TaskRef> tasks = new java.util.TreeSet<>(TaskRef.ORDER);
    cells.forEach(c -> tasks.add(c.key().task()));
    if (name == null) {
      if (tasks.size() != 1) {
        throw new InvalidInputException(
            field,
            "the job holds "
                + tasks.size()
                + " tasks ("
                + String.join(", ", tasks.stream().map(TaskRef::id).toList())
                + "): name one with "
                + field);
      }
      return tasks.iterator().next();
    }
    return tasks.stream()
        .filter(t -> t.task().equals(name) || t.id().equals(name))
        .findFirst()
        .orElseThrow(
            () ->
                new InvalidInputException(
                    field,
                    field
                        + " "
                        + name
                        + " is none of the job's tasks: "
                        + String.join(", ", tasks.stream().map(TaskRef::id).toList())));
  }

  private static Map<RowKey, CellRecord> byRow(List<CellRecord> cells, TaskRef task) {
    Map<RowKey, CellRecord> rows = new LinkedHashMap<>();
    for (CellRecord cell : cells) {
      if (cell.key().task().equals(task)) {
        rows.merge(
            RowKey.of(cell.key()),
            cell,
            (a, b) -> a.finishedAt().compareTo(b.finishedAt()) >= 0 ? a : b);
      }
    }
    return rows;
  }
}
