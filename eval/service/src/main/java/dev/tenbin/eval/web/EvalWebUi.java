package dev.tenbin.eval.web;

import static dev.tenbin.eval.web.PageLayout.escape;
import static dev.tenbin.eval.web.PageLayout.urlPath;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tenbin.core.InvalidInputException;
import dev.tenbin.core.NotFoundException;
import dev.tenbin.core.TenbinException;
import dev.tenbin.eval.job.JobFileDigests;
import dev.tenbin.eval.job.JobFiles;
import dev.tenbin.eval.job.JobManager;
import dev.tenbin.eval.job.JobRequest;
import dev.tenbin.eval.store.CellRecord;
import dev.tenbin.eval.store.ResultStore;
import dev.tenbin.rpc.HttpEndpoint.Access;
import dev.tenbin.rpc.HttpEndpoint.Request;
import dev.tenbin.rpc.HttpEndpoint.Response;
import dev.tenbin.rpc.HttpEndpoint.WebRoute;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.zip.ZipEntry;
import java.util.zip.ZipOutputStream;

/**
 * The eval service's web UI, served beside gRPC by the host's HTTP endpoint (so under its TLS,
 * tokens, admission limit and drain): the job list ({@code /}, {@code /jobs}, live through {@code
 * /api/jobs}), one job ({@code /jobs/ID}), its files ({@code /jobs/ID/files/PATH}, confined exactly
 * as the gRPC {@code ReadJobFile}: {@link JobFiles#open}), its whole folder as one zip ({@code
 * /jobs/ID/archive}), the result pages ({@code /leaderboard}, {@code /compare}: {@link
 * ResultPages}), and sign-in ({@code /login}, {@code /logout}) for browsers when the service takes
 * tokens. Pages redirect to {@code /login} without a valid token; {@code /api/jobs}, files and
 * archives answer 401.
 */
public final class EvalWebUi {
  /** How often the job list's script asks {@code /api/jobs} again. */
  static final Duration POLL = Duration.ofSeconds(3);

  /** The lines of the job's events shown on its page. */
  static final int EVENT_LINES = 40;

  /** The rows of the cell table of a job's page. */
  static final int MAX_CELL_ROWS = 500;

  private static final DateTimeFormatter TIME =
      DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss 'UTC'").withZone(java.time.ZoneOffset.UTC);

  /** Every zip entry carries this time, so the same folder gives the same bytes. */
  private static final long ZIP_TIME = Instant.parse("2000-01-01T00:00:00Z").toEpochMilli();

  private final JobManager jobs;
  private final ResultPages results;
  private final boolean tokens;
  private final JobFileDigests digests;

  /**
   * @param jobs the service's jobs
   * @param results the pages at {@code /leaderboard} and {@code /compare}
   * @param tokens whether the service takes tokens (pages show Sign out)
   * @param digests the digests of job files listed before (shared with the gRPC side)
   */
  public EvalWebUi(JobManager jobs, ResultPages results, boolean tokens, JobFileDigests digests) {
    this.jobs = jobs;
    this.results = results;
    this.tokens = tokens;
    this.digests = digests;
  }

  /** The routes to serve ({@code GrpcServerHost.serveHttp}). */
  public List<WebRoute> routes() {
    return List.of(
        WebRoute.get("/", Access.PAGE, request -> Response.html(jobList())),
        WebRoute.get("/jobs", Access.PAGE, request -> Response.html(jobList())),
        WebRoute.get("/api/jobs", Access.API, request -> Response.json(jobsJson())),
        // a job's page is a page; its files and archive are downloads (401 without a token)
        WebRoute.getPrefix(
            "/jobs/", rest -> rest.contains("/") ? Access.API : Access.PAGE, this::job),
        WebRoute.get(
            "/leaderboard",
            Access.PAGE,
            request -> Response.html(results.leaderboard(request.query()))),
        WebRoute.get(
            "/compare", Access.PAGE, request -> Response.html(results.compare(request.query()))),
        WebRoute.get(
            "/login",
            Access.OPEN,
            request ->
                Response.html(
                    login(request.tokensRequired(), safeNext(request.query("next")), null))),
        WebRoute.post("/login", Access.OPEN, this::signIn),
        WebRoute.post(
            "/logout",
            Access.OPEN,
            request -> Response.redirect("/login").withHeader("Set-Cookie", request.signOut())));
  }

  // ---- the job list

  private String jobList() {
    StringBuilder rows = new StringBuilder();
    List<JobManager.Snapshot> all = new ArrayList<>(jobs.list());
    java.util.Collections.reverse(all); // newest first
    Instant now = Instant.now();
    for (JobManager.Snapshot job : all) {
      String id = escape(job.id());
      rows.append("<tr data-job=\"")
          .append(id)
          .append("\"><td><a href=\"/jobs/")
          .append(escape(urlPath(job.id())))
          .append("\">")
          .append(id)
          .append("</a></td><td class=\"wrap\">")
          .append(escape(job.name()))
          .append("</td><td data-field=\"state\" class=\"state-")
          .append(job.state())
          .append("\">")
          .append(job.state())
          .append("</td><td>")
          .append(time(job.submitted()))
          .append("</td><td data-field=\"cells\" class=\"num\">")
          .append(cells(job))
          .append("</td><td data-field=\"work\" class=\"wrap\">")
          .append(escape(job.state() == JobManager.State.RUNNING ? job.runningWork() : ""))
          .append("</td><td data-field=\"eta\">")
          .append(escape(duration(eta(job, now))))
          .append("</td><td data-field=\"error\" class=\"wrap error\">")
          .append(error(job))
          .append("</td></tr>\n");
    }
    boolean active = all.stream().anyMatch(job -> !job.state().finished());
    String body =
        "<h1>Jobs</h1>\n"
            + (all.isEmpty()
                ? "<p>No job yet: submit one with <code>tenbin job submit</code>.</p>\n"
                : "<div class=\"scroll\"><table id=\"jobs\"><thead><tr><th>Job</th><th>Name</th>"
                    + "<th>State</th><th>Submitted</th><th>Cells done</th><th>Current work</th>"
                    + "<th>ETA</th><th>Errors</th></tr></thead>\n<tbody>\n"
                    + rows
                    + "</tbody></table></div>\n")
            + "<p><small>Updated every "
            + POLL.toSeconds()
            + " s.</small></p>\n"
            + POLL_SCRIPT.replace("POLL_MS", Long.toString(POLL.toMillis()));
    // Without a script the page refreshes itself while a job is queued or running.
    String head =
        active ? "<noscript><meta http-equiv=\"refresh\" content=\"10\"></noscript>\n" : "";
    return PageLayout.page("Jobs", tokens, head, body);
  }

  /**
   * Asks {@code /api/jobs} every few seconds and updates the rows; a job the page does not show yet
   * reloads it. textContent only: nothing from the server is parsed as HTML.
   */
  private static final String POLL_SCRIPT =
      """
      <script>
      (function () {
        function set(row, field, text) {
          var cell = row.querySelector('[data-field="' + field + '"]');
          if (cell && cell.textContent !== text) cell.textContent = text;
          return cell;
        }
        function poll() {
          fetch('/api/jobs', {credentials: 'same-origin'}).then(function (r) {
            if (!r.ok) throw new Error(r.status);
            return r.json();
          }).then(function (data) {
            var shown = document.querySelectorAll('tr[data-job]').length;
            if (data.jobs.length !== shown) { location.reload(); return; }
            data.jobs.forEach(function (job) {
              var row = document.querySelector('tr[data-job="' + CSS.escape(job.id) + '"]');
              if (!row) { location.reload(); return; }
              var state = set(row, 'state', job.state);
              state.className = 'state-' + job.state;
              set(row, 'cells', job.cells_text);
              set(row, 'work', job.state === 'RUNNING' ? job.running_work : '');
              set(row, 'eta', job.eta_text);
              set(row, 'error', job.error_text);
            });
            document.body.setAttribute('data-polled', 'ok');
          }).catch(function () {
            document.body.setAttribute('data-polled', 'failed');
          });
        }
        setInterval(poll, POLL_MS);
      })();
      </script>
      """;

  /** {@code /api/jobs}: the jobs as the list shows them, newest first. */
  Map<String, Object> jobsJson() {
    List<Map<String, Object>> out = new ArrayList<>();
    List<JobManager.Snapshot> all = new ArrayList<>(jobs.list());
    java.util.Collections.reverse(all);
    Instant now = Instant.now();
    for (JobManager.Snapshot job : all) {
      Map<String, Object> row = new LinkedHashMap<>();
      Duration eta = eta(job, now);
      row.put("id", job.id());
      row.put("name", job.name());
      row.put("state", job.state().name());
      row.put("submitted", job.submitted() == null ? null : job.submitted().toString());
      row.put("started", job.started() == null ? null : job.started().toString());
      row.put("ended", job.ended() == null ? null : job.ended().toString());
      row.put("cells_done", job.cellsDone());
      row.put("cells_total", job.cellsTotal());
      row.put("cells_cached", job.cellsCached());
      row.put("cells_text", cells(job));
      row.put("running_work", job.runningWork());
      row.put("eta_seconds", eta == null ? null : eta.toSeconds());
      row.put("eta_text", duration(eta));
      row.put("error", job.error());
      row.put("error_code", job.errorCode());
      row.put("error_text", job.error().isEmpty() ? "" : errorText(job));
      out.add(row);
    }
    return Map.of("jobs", out);
  }

  private static String cells(JobManager.Snapshot job) {
    return job.cellsDone()
        + " of "
        + job.cellsTotal()
        + (job.cellsCached() > 0 ? " (" + job.cellsCached() + " stored before)" : "");
  }

  /**
   * The time left of a running job at the pace of the cells it computed so far (cells stored before
   * it started are not counted); null when there is no pace yet or the job is not running.
   */
  static Duration eta(JobManager.Snapshot job, Instant now) {
    int computed = job.cellsDone() - job.cellsCached();
    int left = job.cellsTotal() - job.cellsDone();
    if (job.state() != JobManager.State.RUNNING || job.started() == null || computed <= 0) {
      return null;
    }
    if (left <= 0) {
      return Duration.ZERO;
    }
    long elapsed = Math.max(0, ChronoUnit.MILLIS.between(job.started(), now));
    return Duration.ofMillis(elapsed / computed * left);
  }

  static String duration(Duration duration) {
    if (duration == null) {
      return "";
    }
    long seconds = duration.toSeconds();
    if (seconds < 60) {
      return seconds + " s";
    }
    if (seconds < 3600) {
      return seconds / 60 + " min " + seconds % 60 + " s";
    }
    return seconds / 3600 + " h " + seconds % 3600 / 60 + " min";
  }

  private static String errorText(JobManager.Snapshot job) {
    return (job.errorCode().isEmpty() ? "" : "[" + job.errorCode() + "] ") + job.error();
  }

  private static String error(JobManager.Snapshot job) {
    return job.error().isEmpty() ? "" : escape(errorText(job));
  }

  private static String time(Instant instant) {
    return instant == null ? "" : escape(TIME.format(instant));
  }

  // ---- one job, its files and its archive

  private Response job(Request request) throws IOException {
    String rest = request.rest();
    int slash = rest.indexOf('/');
    String id = slash < 0 ? rest : rest.substring(0, slash);
    String tail = slash < 0 ? "" : rest.substring(slash + 1);
    if (id.isEmpty()) {
      return Response.redirect("/jobs");
    }
    JobManager.Snapshot job = jobs.get(id); // NOT_FOUND naming job_id
    if (tail.isEmpty()) {
      return Response.html(jobPage(job));
    }
    if (tail.equals("archive")) {
      return archive(job);
    }
    if (tail.startsWith("files/")) {
      return file(job, tail.substring("files/".length()), request.query("download") != null);
    }
    throw new NotFoundException("path", "no page " + request.path());
  }

  private Path root() {
    return jobs.admission().resultsRoot();
  }

  /** A file of the job's folder, streamed; the checks and errors are {@link JobFiles#open}'s. */
  private Response file(JobManager.Snapshot job, String path, boolean download) {
    InputStream in = JobFiles.open(root(), jobs.directory(job.id()), path, 0);
    Response response =
        Response.stream(
            contentType(path),
            -1,
            new dev.tenbin.rpc.HttpEndpoint.Body() {
              @Override
              public void writeTo(OutputStream out) throws IOException {
                in.transferTo(out);
              }

              @Override
              public void close() throws IOException {
                in.close();
              }
            });
    String name = path.substring(path.lastIndexOf('/') + 1);
    // A job's own pages (its report) run as their own origin: nothing of this service's.
    response = response.withHeader("Content-Security-Policy", "sandbox allow-scripts");
    if (download) {
      response =
          response.withHeader(
              "Content-Disposition", "attachment; filename=\"" + asciiName(name) + "\"");
    }
    return response;
  }

  /**
   * The job's folder as one zip, streamed: its files as {@link JobFiles#list} gives them (locks and
   * temporaries left out), in path order, each under {@code JOB_ID/}, every entry of one fixed
   * time.
   */
  private Response archive(JobManager.Snapshot job) {
    Path folder = jobs.directory(job.id());
    List<JobFiles.JobFile> files = JobFiles.list(root(), folder, digests);
    String prefix = asciiName(job.id()) + "/";
    return Response.stream(
            "application/zip",
            -1,
            out -> {
              ZipOutputStream zip = new ZipOutputStream(out);
              for (JobFiles.JobFile file : files) {
                try (InputStream in = JobFiles.open(root(), folder, file.path(), 0)) {
                  ZipEntry entry = new ZipEntry(prefix + file.path());
                  entry.setTime(ZIP_TIME);
                  zip.putNextEntry(entry);
                  in.transferTo(zip);
                  zip.closeEntry();
                } catch (TenbinException e) {
                  // removed (or replaced by a link) since the listing: left out, as a new listing
                  // would
                }
              }
              zip.finish();
              zip.flush();
            })
        .withHeader(
            "Content-Disposition", "attachment; filename=\"" + asciiName(job.id()) + ".zip\"");
  }

  private static String asciiName(String name) {
    return name.replaceAll("[^A-Za-z0-9._-]", "_");
  }

  static String contentType(String path) {
    String name = path.toLowerCase(Locale.ROOT);
    String extension = name.substring(name.lastIndexOf('.') + 1);
    return switch (extension) {
      case "html", "htm" -> "text/html; charset=utf-8";
      case "json" -> "application/json";
      case "svg" -> "image/svg+xml";
      case "png" -> "image/png";
      case "csv" -> "text/csv; charset=utf-8";
      case "md", "txt", "log", "yaml", "yml", "jsonl", "tsv", "trec", "run" ->
          "text/plain; charset=utf-8";
      default -> "application/octet-stream";
    };
  }

  /** Files of a job's folder a page links first: its reports. */
  static boolean isReport(String path) {
    String name = path.substring(path.lastIndexOf('/') + 1).toLowerCase(Locale.ROOT);
    return !path.startsWith("cells/")
        && (name.startsWith("leaderboard")
            || name.contains("positions")
            || name.contains("parity")
            || name.contains("fidelity")
            || name.endsWith(".html"));
  }

  private String jobPage(JobManager.Snapshot job) {
    Path folder = jobs.directory(job.id());
    String base = "/jobs/" + urlPath(job.id());
    List<JobFiles.JobFile> files = JobFiles.list(root(), folder, digests);
    StringBuilder body = new StringBuilder();
    body.append("<h1>Job ")
        .append(escape(job.id()))
        .append(" <small>")
        .append(escape(job.name()))
        .append("</small></h1>\n<table id=\"summary\"><tbody>\n");
    row(body, "State", "<span class=\"state-" + job.state() + "\">" + job.state() + "</span>");
    row(body, "Cells done", escape(cells(job)));
    if (job.state() == JobManager.State.RUNNING) {
      row(body, "Current work", escape(job.runningWork()));
      row(body, "ETA", escape(duration(eta(job, Instant.now()))));
    }
    row(body, "Submitted", time(job.submitted()));
    row(body, "Started", time(job.started()));
    row(body, "Ended", time(job.ended()));
    row(body, "Folder", "<span class=\"wrap\">" + escape(job.outputDirectory()) + "</span>");
    if (!job.error().isEmpty()) {
      row(body, "Errors", "<span class=\"error wrap\">" + error(job) + "</span>");
    }
    body.append("</tbody></table>\n");

    body.append("<h2>Reports and downloads</h2>\n<ul id=\"reports\">\n");
    for (JobFiles.JobFile file : files) {
      if (isReport(file.path())) {
        body.append("<li><a href=\"")
            .append(escape(base + "/files/" + urlPath(file.path())))
            .append("\">")
            .append(escape(file.path()))
            .append("</a></li>\n");
      }
    }
    body.append("<li><a href=\"")
        .append(escape(base + "/archive"))
        .append("\" id=\"archive\">The whole folder as one zip</a> (")
        .append(files.size())
        .append(" files, ")
        .append(bytes(files.stream().mapToLong(JobFiles.JobFile::sizeBytes).sum()))
        .append(")</li>\n</ul>\n");

    body.append("<h2>Cells</h2>\n").append(cellTable(job, folder));

    JobRequest request = jobs.request(job.id());
    body.append("<h2>Spec</h2>\n<pre id=\"spec\">")
        .append(escape(request.specYaml()))
        .append("</pre>\n");
    for (JobRequest.TaskSetDocument taskSet : request.taskSets()) {
      body.append("<h3>Task set ")
          .append(escape(taskSet.name()))
          .append("</h3>\n<pre>")
          .append(escape(taskSet.yaml()))
          .append("</pre>\n");
    }

    body.append("<h2>Events</h2>\n<pre id=\"events\">")
        .append(escape(events(job)))
        .append("</pre>\n");

    body.append("<h2>Files</h2>\n<div class=\"scroll\"><table id=\"files\"><thead><tr>")
        .append("<th>Path</th><th>Bytes</th><th>SHA-256</th><th></th></tr></thead><tbody>\n");
    for (JobFiles.JobFile file : files) {
      String link = escape(base + "/files/" + urlPath(file.path()));
      body.append("<tr><td class=\"wrap\"><a href=\"")
          .append(link)
          .append("\">")
          .append(escape(file.path()))
          .append("</a></td><td class=\"num\">")
          .append(file.sizeBytes())
          .append("</td><td class=\"wrap\"><code>")
          .append(escape(file.sha256().substring(0, Math.min(16, file.sha256().length()))))
          .append("</code></td><td><a href=\"")
          .append(link)
          .append("?download=1\">download</a></td></tr>\n");
    }
    body.append("</tbody></table></div>\n");
    String head =
        job.state().finished()
            ? ""
            : "<meta http-equiv=\"refresh\" content=\"" + POLL.toSeconds() * 3 + "\">\n";
    return PageLayout.page("Job " + job.id(), tokens, head, body.toString());
  }

  private static void row(StringBuilder body, String name, String html) {
    body.append("<tr><th scope=\"row\">")
        .append(name)
        .append("</th><td>")
        .append(html)
        .append("</td></tr>\n");
  }

  private String cellTable(JobManager.Snapshot job, Path folder) {
    JobFiles.checkFolder(root(), folder);
    if (!Files.isDirectory(folder.resolve("cells"))) {
      return "<p>No cell stored yet.</p>\n";
    }
    List<CellRecord> cells =
        ResultStore.existing(folder, "job_id").readAll(ResultStore.Rankings.LEFT_IN_FILE);
    if (cells.isEmpty()) {
      return "<p>No cell stored yet.</p>\n";
    }
    TreeMap<String, Boolean> metricNames = new TreeMap<>();
    cells.forEach(cell -> cell.metrics().keySet().forEach(name -> metricNames.put(name, true)));
    StringBuilder out = new StringBuilder();
    out.append("<p>")
        .append(cells.size())
        .append(" of ")
        .append(job.cellsTotal())
        .append(" planned cells stored.</p>\n<div class=\"scroll\"><table id=\"cells\"><thead><tr>")
        .append("<th>System</th><th>Variant</th><th>Task</th><th>Mode</th><th>Queries</th>");
    metricNames.keySet().forEach(name -> out.append("<th>").append(escape(name)).append("</th>"));
    out.append("</tr></thead><tbody>\n");
    cells.stream()
        .sorted(java.util.Comparator.comparing(cell -> cell.key().label()))
        .limit(MAX_CELL_ROWS)
        .forEach(
            cell -> {
              out.append("<tr><td class=\"wrap\">")
                  .append(escape(cell.key().system().name()))
                  .append("</td><td>")
                  .append(escape(cell.key().variant()))
                  .append("</td><td class=\"wrap\">")
                  .append(escape(cell.key().task().benchmark() + "/" + cell.key().task().task()))
                  .append("</td><td>")
                  .append(escape(cell.key().mode().name().toLowerCase(Locale.ROOT)))
                  .append("</td><td class=\"num\">")
                  .append(cell.queries().size())
                  .append("</td>");
              for (String name : metricNames.keySet()) {
                Double value = cell.metrics().get(name);
                out.append("<td class=\"num\">")
                    .append(value == null ? "" : String.format(Locale.ROOT, "%.4f", value))
                    .append("</td>");
              }
              out.append("</tr>\n");
            });
    out.append("</tbody></table></div>\n");
    if (cells.size() > MAX_CELL_ROWS) {
      out.append("<p>The first ")
          .append(MAX_CELL_ROWS)
          .append(" cells are shown; the leaderboard and the archive hold all of them.</p>\n");
    }
    return out.toString();
  }

  private String events(JobManager.Snapshot job) {
    List<JsonNode> events = jobs.events(job.id());
    StringBuilder out = new StringBuilder();
    for (JsonNode event : events.subList(Math.max(0, events.size() - EVENT_LINES), events.size())) {
      out.append(event.path("at").asText(""))
          .append("  ")
          .append(event.path("event").asText(""))
          .append("  ")
          .append(event.path("detail").asText(""))
          .append('\n');
    }
    return out.isEmpty() ? "(no events)" : out.toString();
  }

  private static String bytes(long bytes) {
    if (bytes < 1024) {
      return bytes + " B";
    }
    if (bytes < 1024 * 1024) {
      return String.format(Locale.ROOT, "%.1f KiB", bytes / 1024.0);
    }
    return String.format(Locale.ROOT, "%.1f MiB", bytes / (1024.0 * 1024));
  }

  // ---- sign-in

  private static String login(boolean tokensRequired, String next, String problem) {
    StringBuilder body = new StringBuilder("<h1>Sign in</h1>\n");
    if (!tokensRequired) {
      body.append("<p>This service takes no token: every page is open. <a href=\"/jobs\">Jobs</a>")
          .append("</p>\n");
      return PageLayout.page("Sign in", false, "", body.toString());
    }
    if (problem != null) {
      body.append("<p class=\"error\" role=\"alert\">").append(escape(problem)).append("</p>\n");
    }
    body.append("<form class=\"login\" method=\"post\" action=\"/login\">\n")
        .append("<label for=\"token\">The service's bearer token</label>\n")
        .append(
            "<input id=\"token\" name=\"token\" type=\"password\" autocomplete=\"current-password\"")
        .append(" required autofocus>\n<input type=\"hidden\" name=\"next\" value=\"")
        .append(escape(next))
        .append("\">\n<button type=\"submit\">Sign in</button>\n</form>\n")
        .append("<p><small>The browser keeps a session cookie derived from the token (not the")
        .append(
            " token) until you sign out or the token is removed from the service.</small></p>\n");
    return PageLayout.page("Sign in", false, "", body.toString());
  }

  private Response signIn(Request request) {
    Map<String, List<String>> form;
    try {
      form = request.form();
    } catch (InvalidInputException e) {
      form = Map.of();
    }
    String token = first(form, "token");
    String next = safeNext(first(form, "next"));
    if (!request.tokensRequired()) {
      return Response.redirect(next);
    }
    String cookie = request.signIn(token.strip());
    if (cookie == null) {
      String page = login(true, next, "That token is not accepted.");
      return Response.bytes(401, "text/html; charset=utf-8", page.getBytes(StandardCharsets.UTF_8));
    }
    return Response.redirect(next).withHeader("Set-Cookie", cookie);
  }

  private static String first(Map<String, List<String>> form, String name) {
    List<String> values = form.get(name);
    return values == null || values.isEmpty() ? "" : values.getFirst();
  }

  /** Where to go after signing in: a path of this service only (never another host). */
  static String safeNext(String next) {
    if (next == null
        || !next.startsWith("/")
        || next.startsWith("//")
        || next.contains("\\")
        || next.chars().anyMatch(c -> c < 0x21 || c == 0x7f)) {
      return "/jobs";
    }
    return next;
  }
}
