package dev.tenbin.eval.leaderboard;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * The quality/cost Pareto frontier: a point is on it when no other point is at least as good in
 * quality at no more cost and strictly better in one of them.
 */
final class ParetoFrontier {
  private ParetoFrontier() {}

  /** A row plotted at its cost and quality. */
  record Point(String id, String label, double cost, double quality, boolean frontier) {}

  /** The points with their frontier flag, ordered by cost (then quality descending). */
  static List<Point> of(List<Point> points) {
    List<Point> sorted =
        points.stream()
            .sorted(
                Comparator.comparingDouble(Point::cost)
                    .thenComparing(Point::quality, Comparator.reverseOrder()))
            .toList();
    List<Point> flagged = new ArrayList<>();
    double best = Double.NEGATIVE_INFINITY;
    for (Point point : sorted) {
      boolean frontier = point.quality() > best;
      best = Math.max(best, point.quality());
      flagged.add(new Point(point.id(), point.label(), point.cost(), point.quality(), frontier));
    }
    return flagged;
  }
}
