package dev.tenbin.eval.web;

import static dev.tenbin.eval.web.PageLayout.escape;
import static dev.tenbin.eval.web.PageLayout.urlPath;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tenbin.core.TenbinException;
import dev.tenbin.eval.job.JobFiles;
import dev.tenbin.eval.job.JobManager;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The result pages a service has without a richer renderer: {@code /leaderboard} is one plain table
 * of the rows of every finished job's stored {@code leaderboard.json} (read through {@link
 * JobFiles}, confined as downloads are), in job order then rank order as stored; {@code ?job=ID}
 * keeps one job. {@code /compare} says that comparison is not configured and where each job's own
 * comparisons are.
 */
public final class StoredLeaderboards implements ResultPages {
  /** The stored leaderboard of a job's folder. */
  public static final String LEADERBOARD_JSON = "leaderboard.json";

  private static final ObjectMapper JSON = new ObjectMapper();
  private final JobManager jobs;
  private final boolean signOut;

  /**
   * @param signOut whether the pages show Sign out (the service takes tokens)
   */
  public StoredLeaderboards(JobManager jobs, boolean signOut) {
    this.jobs = jobs;
    this.signOut = signOut;
  }

  @Override
  public String leaderboard(Map<String, List<String>> query) {
    List<String> only = query.getOrDefault("job", List.of());
    StringBuilder rows = new StringBuilder();
    int boards = 0;
    for (JobManager.Snapshot job : jobs.list()) {
      if (job.state() != JobManager.State.SUCCEEDED
          || (!only.isEmpty() && !only.contains(job.id()))) {
        continue;
      }
      JsonNode board = read(job);
      if (board == null) {
        continue;
      }
      boards++;
      String metric = board.path("metric").asText("");
      for (JsonNode row : board.path("rows")) {
        rows.append("<tr><td><a href=\"/jobs/")
            .append(escape(urlPath(job.id())))
            .append("\">")
            .append(escape(job.id()))
            .append("</a> ")
            .append(escape(job.name()))
            .append("</td><td class=\"num\">")
            .append(escape(row.path("rank").isNull() ? "" : row.path("rank").asText()))
            .append("</td><td class=\"wrap\">")
            .append(escape(row.path("system").asText("")))
            .append("</td><td>")
            .append(escape(row.path("variant").asText("")))
            .append("</td><td>")
            .append(escape(row.path("mode").asText("")))
            .append("</td><td>")
            .append(escape(metric))
            .append("</td><td class=\"num\">")
            .append(score(row.path("macro")))
            .append("</td><td class=\"num\">")
            .append(score(row.path("micro")))
            .append("</td><td class=\"num\">")
            .append(escape(row.path("covered").asText("")))
            .append(" of ")
            .append(escape(row.path("total").asText("")))
            .append("</td></tr>\n");
      }
    }
    String body =
        "<h1>Leaderboard</h1>\n"
            + (boards == 0
                ? "<p>No finished job has a stored leaderboard yet.</p>\n"
                : "<p>The rows of "
                    + boards
                    + " finished jobs' stored leaderboards (scores 0..100); each job's page links"
                    + " its full report.</p>\n<div class=\"scroll\"><table id=\"leaderboard\">"
                    + "<thead><tr><th>Job</th><th>Rank</th><th>System</th><th>Variant</th>"
                    + "<th>Mode</th><th>Metric</th><th>Macro</th><th>Micro</th><th>Tasks</th>"
                    + "</tr></thead>\n<tbody>\n"
                    + rows
                    + "</tbody></table></div>\n");
    return PageLayout.page("Leaderboard", signOut, "", body);
  }

  @Override
  public String compare(Map<String, List<String>> query) {
    return PageLayout.page(
        "Compare",
        signOut,
        "",
        "<h1>Compare</h1>\n<p>Comparing systems across jobs is not configured on this service."
            + " Each job's own report (<code>leaderboard.html</code> on its page) holds the paired"
            + " tests between its systems.</p>\n");
  }

  private JsonNode read(JobManager.Snapshot job) {
    try (InputStream in =
        JobFiles.open(
            jobs.admission().resultsRoot(), jobs.directory(job.id()), LEADERBOARD_JSON, 0)) {
      return JSON.readTree(in);
    } catch (TenbinException e) {
      return null; // no stored leaderboard (or not one this service may serve)
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the leaderboard of job " + job.id(), e);
    }
  }

  private static String score(JsonNode value) {
    return value.isNumber() ? String.format(Locale.ROOT, "%.2f", value.asDouble()) : "";
  }
}
