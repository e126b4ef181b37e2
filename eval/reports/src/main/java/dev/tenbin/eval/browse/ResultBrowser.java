package dev.tenbin.eval.browse;

import dev.tenbin.core.InvalidInputException;
import dev.tenbin.eval.warehouse.Warehouse;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The result pages of a web UI over many jobs: the all-jobs leaderboard and the comparison of two
 * systems, each a complete HTML document rendered from a page's URL query parameters.
 *
 * <p>The browser keeps one warehouse file ({@link Warehouse}) over the job folders last given to
 * {@link #refresh}, and their stored cells. A job's id is its folder's name: rows link to {@code
 * /jobs/{jobId}} and task scores to {@code /jobs/{jobId}/files/cells/FINGERPRINT.cell.json} (the
 * cell's stored file inside the job folder); the comparison form submits to {@code /compare}. Until
 * the first refresh the pages show no cells.
 *
 * <p>Bad parameters (an unknown name, a value no stored cell has, a malformed date, a compare
 * without {@code a} or {@code b}) throw {@link InvalidInputException} whose field is the
 * parameter's name and whose message says what is wrong: an HTTP layer answers it with 400.
 *
 * <p>Leaderboard parameters: {@code aggregate} ({@code micro}, the default, or {@code macro});
 * filters, each repeatable (any of the values): {@code benchmark}, {@code task} (name or {@code
 * benchmark/task}), {@code language}, {@code family}, {@code model}, {@code variant}; {@code nano}
 * ({@code yes}: only Nano-sets, {@code no}: none); {@code from} and {@code to} (YYYY-MM-DD, the UTC
 * day a cell finished, inclusive). Compare parameters: {@code a} and {@code b} (rows as the
 * leaderboard names them, {@code system/variant/mode}) and optionally {@code task}, repeatable.
 */
public final class ResultBrowser {
  private final Path warehouseFile;
  private final SiteNavigation navigation;
  private volatile Catalog catalog = Catalog.EMPTY;
  private Map<String, Path> jobs = Map.of();

  /** A browser keeping its warehouse at {@code warehouseFile}, its pages without site nav. */
  public ResultBrowser(Path warehouseFile) {
    this(warehouseFile, SiteNavigation.NONE);
  }

  /** A browser whose pages start with the site's {@code navigation}, styled by its own rules. */
  public ResultBrowser(Path warehouseFile, SiteNavigation navigation) {
    this.warehouseFile = warehouseFile.toAbsolutePath().normalize();
    this.navigation = navigation;
  }

  /**
   * Makes the pages show the stored cells of {@code jobDirs}, each job's id its folder's name: the
   * warehouse file is kept when it was built from exactly these folders as they are now, else built
   * anew into a temporary file and renamed into place ({@link Warehouse#refresh(List, Path)}), and
   * then the cells are read again. No folder given: the pages show no cells (the file stays as it
   * is).
   *
   * @throws InvalidInputException when a folder holds no job results or two share a name
   */
  public synchronized void refresh(List<Path> jobDirs) {
    refresh(Catalog.byFolderName(jobDirs));
  }

  /**
   * As {@link #refresh(List)}, each job folder under the id its pages link to ({@code /jobs/{id}}):
   * a service whose job ids are not its folders' names.
   */
  public synchronized void refresh(Map<String, Path> jobs) {
    Map<String, Path> normalized = new LinkedHashMap<>();
    jobs.forEach((id, dir) -> normalized.put(id, dir.toAbsolutePath().normalize()));
    if (normalized.isEmpty()) {
      catalog = Catalog.EMPTY;
      this.jobs = normalized;
      return;
    }
    Warehouse.BuildSummary built =
        Warehouse.refresh(List.copyOf(normalized.values()), warehouseFile);
    if (built.kept() && normalized.equals(this.jobs) && catalog != Catalog.EMPTY) {
      return; // the same folders holding the same cell files: nothing to read again
    }
    catalog = Catalog.read(normalized);
    this.jobs = normalized;
  }

  /** The all-jobs leaderboard for {@code query} (parameters in the class comment). */
  public String leaderboard(Map<String, List<String>> query) {
    return LeaderboardPage.render(catalog, query, navigation);
  }

  /** The comparison of two rows for {@code query} ({@code a}, {@code b}, optional {@code task}). */
  public String compare(Map<String, List<String>> query) {
    Catalog current = catalog;
    if (current.cells().isEmpty()) {
      throw new InvalidInputException("a", "no job results are loaded to compare");
    }
    return ComparePage.render(current, warehouseFile, query, navigation);
  }
}
