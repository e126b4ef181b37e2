package dev.tenbin.drill;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.ToDoubleFunction;

/**
 * One measure of one service over a soak: its value when the first process's warm-up ended, its
 * value at the end (of the latest process), and its slope after warm-up. A restart starts a new
 * process whose level has nothing to do with the old one's, so the slope is fitted within each
 * process and pooled (least squares with a level of its own per process): the growth per hour of a
 * process that keeps running.
 *
 * @param atWarmUpEnd the first value after warm-up; NaN when none
 * @param atEnd the last value; NaN when no sample has one
 * @param perHour the pooled slope after warm-up, per hour; NaN with fewer than two values in every
 *     process
 * @param samples values after warm-up that went into the slope
 */
record Trend(double atWarmUpEnd, double atEnd, double perHour, int samples) {

  /**
   * The trend of {@code measure} (NaN where a sample has no value) over {@code samples} of one
   * service, in time order; a sample counts once its process has been under load for {@code
   * warmUpMillis} ({@code generationStarts}: when each process's load began, in milliseconds).
   */
  static Trend of(
      List<ProcessSample> samples,
      Map<Integer, Long> generationStarts,
      long warmUpMillis,
      ToDoubleFunction<ProcessSample> measure) {
    Map<Integer, List<double[]>> settled = new LinkedHashMap<>();
    double first = Double.NaN;
    for (ProcessSample sample : samples) {
      double value = measure.applyAsDouble(sample);
      long start = generationStarts.getOrDefault(sample.generation(), 0L);
      if (Double.isNaN(value) || sample.atMillis() - start < warmUpMillis) {
        continue;
      }
      if (Double.isNaN(first)) {
        first = value;
      }
      settled
          .computeIfAbsent(sample.generation(), g -> new ArrayList<>())
          .add(new double[] {sample.atMillis(), value});
    }
    double last = Double.NaN;
    for (int i = samples.size() - 1; i >= 0 && Double.isNaN(last); i--) {
      last = measure.applyAsDouble(samples.get(i));
    }
    double covariance = 0;
    double variance = 0;
    int count = 0;
    for (List<double[]> points : settled.values()) {
      count += points.size();
      if (points.size() < 2) {
        continue;
      }
      double meanT = points.stream().mapToDouble(p -> p[0]).average().orElseThrow();
      double meanY = points.stream().mapToDouble(p -> p[1]).average().orElseThrow();
      for (double[] point : points) {
        covariance += (point[0] - meanT) * (point[1] - meanY);
        variance += (point[0] - meanT) * (point[0] - meanT);
      }
    }
    double perHour = variance > 0 ? covariance / variance * 3_600_000 : Double.NaN;
    return new Trend(first, last, perHour, count);
  }
}
