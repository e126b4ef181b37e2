package dev.tenbin.eval.result;

import java.util.Collections;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The timings of one run, by {@link Timing}; written out (JSON, stored cells) in the enum's order
 * under each timing's key.
 */
public final class Timings {
  private final Map<Timing, Double> values;

  private Timings(Map<Timing, Double> values) {
    this.values = Collections.unmodifiableMap(new EnumMap<>(values));
  }

  /** Timings with the given values. */
  public static Timings of(Map<Timing, Double> values) {
    return new Timings(values.isEmpty() ? new EnumMap<>(Timing.class) : values);
  }

  /** The value of {@code timing}, or null when the run did not measure it. */
  public Double get(Timing timing) {
    return values.get(timing);
  }

  /** The value of {@code timing}; throws when the run did not measure it. */
  public double require(Timing timing) {
    Double value = values.get(timing);
    if (value == null) {
      throw new IllegalStateException("the run has no " + timing.key() + " timing");
    }
    return value;
  }

  /** The sum of two measured values, or null when either is missing. */
  public static Double sum(Double a, Double b) {
    return a == null || b == null ? null : a + b;
  }

  /** Key to value, in the enum's order (the form of results and stored cells). */
  public Map<String, Double> asMap() {
    Map<String, Double> map = new LinkedHashMap<>();
    values.forEach((timing, value) -> map.put(timing.key(), value));
    return Collections.unmodifiableMap(map);
  }

  @Override
  public boolean equals(Object other) {
    return other instanceof Timings timings && timings.values.equals(values);
  }

  @Override
  public int hashCode() {
    return values.hashCode();
  }

  @Override
  public String toString() {
    return asMap().toString();
  }
}
