package dev.tenbin.eval.aggregate;

import dev.tenbin.eval.store.TaskRef;
import java.util.Map;

/**
 * A row's score minus the score of its system's base row (same system and mode, variant "base"), on
 * the tasks both have: the aggregates of the per-task differences, which for two complete rows
 * equal the difference of their aggregates.
 *
 * @param micro micro aggregate of the differences
 * @param macro macro aggregate of the differences
 * @param benchmarks per benchmark (hierarchical), for benchmarks with a shared task
 * @param tasks per shared task
 */
public record BaseDelta(
    double micro, double macro, Map<String, Double> benchmarks, Map<TaskRef, Double> tasks) {
  /** The delta of the chosen aggregate. */
  public double of(Aggregate aggregate) {
    return aggregate == Aggregate.MICRO ? micro : macro;
  }
}
