package dev.tenbin.eval.server;

import dev.tenbin.eval.job.JobManager;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.Locale;

/**
 * The eval service's jobs on /metrics: the gauge {@code tenbin.eval.jobs} (Prometheus {@code
 * tenbin_eval_jobs}) counts the jobs of the durable job table in each state, one series per state
 * ({@code state="queued|running|succeeded|failed|cancelled"}), so an alert can fire when the failed
 * count grows (the chart's PrometheusRule, TenbinEvalJobFailed).
 */
final class JobMetrics {
  static final String NAME = "tenbin.eval.jobs";

  private JobMetrics() {}

  /** Registers one gauge per state on {@code registry}, read from {@code jobs} at each scrape. */
  static void bind(JobManager jobs, MeterRegistry registry) {
    for (JobManager.State state : JobManager.State.values()) {
      Gauge.builder(NAME, jobs, j -> count(j, state))
          .tag("state", state.name().toLowerCase(Locale.ROOT))
          .description("Jobs of the eval service's job table in this state")
          .register(registry);
    }
  }

  private static double count(JobManager jobs, JobManager.State state) {
    return jobs.list().stream().filter(s -> s.state() == state).count();
  }
}
