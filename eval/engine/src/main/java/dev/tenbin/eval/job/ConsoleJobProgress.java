package dev.tenbin.eval.job;

import dev.tenbin.eval.plan.Work;
import dev.tenbin.eval.store.CellRecord;
import java.io.PrintWriter;
import java.util.Locale;
import me.tongfei.progressbar.ProgressBar;
import me.tongfei.progressbar.ProgressBarBuilder;
import me.tongfei.progressbar.ProgressBarStyle;

/**
 * A job's progress on a terminal: one bar for the job (cells stored of the plan) and one for the
 * running work item (documents encoded). Without a terminal it prints one line per event instead,
 * so logs of CI runs and services stay readable.
 */
public final class ConsoleJobProgress implements JobListener, AutoCloseable {
  private final PrintWriter err;
  private final boolean bars;
  private ProgressBar jobBar;
  private ProgressBar workBar;
  private int total;
  private int done;

  public ConsoleJobProgress(PrintWriter err, boolean bars) {
    this.err = err;
    this.bars = bars;
  }

  /**
   * Whether standard error is an interactive terminal (Java 22+ can tell; earlier: a console
   * exists).
   */
  public static boolean interactiveTerminal() {
    java.io.Console console = System.console();
    if (console == null || "dumb".equals(System.getenv("TERM"))) {
      return false;
    }
    try {
      return (Boolean) java.io.Console.class.getMethod("isTerminal").invoke(console);
    } catch (ReflectiveOperationException e) {
      return true;
    }
  }

  @Override
  public synchronized void planned(int total, int stored) {
    this.total = total;
    this.done = stored;
    if (bars) {
      jobBar =
          new ProgressBarBuilder()
              .setTaskName("job")
              .setInitialMax(total)
              .setStyle(ProgressBarStyle.ASCII)
              .setUnit(" cells", 1)
              .continuousUpdate()
              .build();
      jobBar.stepTo(stored);
    } else {
      err.printf(Locale.ROOT, "tenbin: job of %d cells, %d already stored%n", total, stored);
      err.flush();
    }
  }

  @Override
  public synchronized void workStarted(Work work, int missingCells) {
    if (bars) {
      closeWorkBar();
      jobBar.setExtraMessage(work.label());
      workBar =
          new ProgressBarBuilder()
              .setTaskName(shorten(work.label()))
              .setInitialMax(-1)
              .setStyle(ProgressBarStyle.ASCII)
              .setUnit(" docs", 1)
              .build();
    } else {
      err.printf(
          Locale.ROOT, "tenbin: [%d/%d] %s (%d cells)%n", done, total, work.label(), missingCells);
      err.flush();
    }
  }

  @Override
  public synchronized void workProgress(Work work, long current, long all, String stage) {
    if (workBar != null) {
      workBar.maxHint(all);
      workBar.stepTo(current);
    }
  }

  @Override
  public synchronized void workNote(Work work, String line) {
    // Below the progress bars' line when they are drawn.
    err.printf(Locale.ROOT, bars ? "%ntenbin: %s%n" : "tenbin: %s%n", line);
    err.flush();
  }

  @Override
  public synchronized void cellStored(CellRecord record) {
    done++;
    Double ndcg = record.metrics().get("ndcg@10");
    if (bars) {
      jobBar.stepTo(done);
    } else {
      err.printf(
          Locale.ROOT,
          "tenbin: [%d/%d] stored %s  nDCG@10 %.4f%n",
          done,
          total,
          record.key().label(),
          ndcg == null ? 0 : ndcg);
      err.flush();
    }
  }

  @Override
  public synchronized void workRetrying(Work work, int attempt, String reason) {
    err.println(
        "tenbin: " + work.label() + ": attempt " + attempt + " failed (" + reason + "); retrying");
    err.flush();
  }

  @Override
  public synchronized void workFailed(Work work, String message) {
    closeWorkBar();
    err.println("tenbin: failed: " + message);
    err.flush();
  }

  @Override
  public synchronized void finished(JobOutcome outcome) {
    close();
    err.printf(
        Locale.ROOT,
        "tenbin: job %s: %d cells, %d already stored, %d computed, %d failed work items, %.1f s%n",
        outcome.cancelled() ? "cancelled" : outcome.succeeded() ? "done" : "incomplete",
        outcome.cellsTotal(),
        outcome.cellsAlreadyStored(),
        outcome.cellsComputed(),
        outcome.failures().size(),
        outcome.elapsedMillis() / 1000.0);
    if (!outcome.millisByKind().isEmpty()) {
      StringBuilder line = new StringBuilder("tenbin: time by work kind:");
      outcome.millisByKind().entrySet().stream()
          .sorted(java.util.Map.Entry.<String, Long>comparingByValue().reversed())
          .forEach(
              e ->
                  line.append(
                      String.format(
                          Locale.ROOT,
                          " %s %.1f s (%.0f%%)",
                          e.getKey(),
                          e.getValue() / 1000.0,
                          100.0 * e.getValue() / Math.max(1, outcome.elapsedMillis()))));
      err.println(line);
    }
    err.flush();
  }

  private void closeWorkBar() {
    if (workBar != null) {
      workBar.close();
      workBar = null;
    }
  }

  /** {@code "N of M cells stored"} so far ({@code "no cell planned yet"} before the plan). */
  public synchronized String storedOfPlanned() {
    return total == 0 && done == 0
        ? "no cell planned yet"
        : String.format(Locale.ROOT, "%d of %d cells stored", done, total);
  }

  @Override
  public synchronized void close() {
    closeWorkBar();
    if (jobBar != null) {
      jobBar.close();
      jobBar = null;
    }
  }

  private static String shorten(String label) {
    return label.length() <= 48 ? label : label.substring(0, 47) + "…";
  }
}
