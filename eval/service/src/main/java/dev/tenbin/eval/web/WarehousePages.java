package dev.tenbin.eval.web;

import dev.tenbin.eval.browse.ResultBrowser;
import dev.tenbin.eval.job.JobManager;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The result pages over every job the service holds: the all-jobs leaderboard and the comparison of
 * two systems ({@link ResultBrowser}), from one warehouse file the service keeps in its state
 * folder. Before each page the browser is refreshed with the folders of the jobs that have stored
 * cells (in submission order, each under its job id, so rows link to the job's page); the warehouse
 * is rebuilt only when a folder's cells changed.
 */
public final class WarehousePages implements ResultPages {
  /** The warehouse file's name in the state folder. */
  public static final String WAREHOUSE_FILE = "viewer-warehouse.duckdb";

  private final JobManager jobs;
  private final ResultBrowser browser;

  /**
   * @param stateDirectory the service's state folder, where the warehouse file is kept
   * @param signOut whether the pages show Sign out (the service takes tokens)
   */
  public WarehousePages(JobManager jobs, Path stateDirectory, boolean signOut) {
    this.jobs = jobs;
    this.browser =
        new ResultBrowser(
            stateDirectory.resolve(WAREHOUSE_FILE), PageLayout.siteNavigation(signOut));
  }

  @Override
  public String leaderboard(Map<String, List<String>> query) {
    refresh();
    return browser.leaderboard(query);
  }

  @Override
  public String compare(Map<String, List<String>> query) {
    refresh();
    return browser.compare(query);
  }

  /** The jobs whose folders hold stored results, each under its id. */
  private void refresh() {
    Map<String, Path> withResults = new LinkedHashMap<>();
    for (JobManager.Snapshot job : jobs.list()) {
      Path folder = job.outputDirectory();
      if (folder != null && Files.isDirectory(folder.resolve("cells"))) {
        withResults.put(job.id(), folder);
      }
    }
    browser.refresh(withResults);
  }
}
