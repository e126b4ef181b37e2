package dev.tenbin.eval.web;

import static dev.tenbin.eval.web.PageLayout.escape;
import static dev.tenbin.eval.web.PageLayout.urlPath;

import dev.tenbin.core.InvalidInputException;
import dev.tenbin.core.SafeText;
import dev.tenbin.core.TenbinException;
import dev.tenbin.eval.job.ExternalRun;
import dev.tenbin.eval.job.JobManager;
import dev.tenbin.eval.job.ResultImport;
import dev.tenbin.eval.plan.JobTask;
import dev.tenbin.eval.store.ResultStore;
import dev.tenbin.eval.store.TaskRef;
import dev.tenbin.rpc.HttpEndpoint.Access;
import dev.tenbin.rpc.HttpEndpoint.FormPart;
import dev.tenbin.rpc.HttpEndpoint.Request;
import dev.tenbin.rpc.HttpEndpoint.Response;
import dev.tenbin.rpc.HttpEndpoint.WebRoute;
import dev.tenbin.rpc.StatusMapper;
import dev.tenbin.scoring.beir.BeirDatasetReader;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;

/**
 * Results made elsewhere added to the service from the browser ({@code /import}): a TREC run,
 * evaluated on a BEIR folder of the service's data roots, or a whole job folder as a zip (the
 * archive a job's page gives, or a zip of a {@code tenbin run} folder). Each import becomes a
 * finished job of its own ({@link JobManager#importResults}), so its cells join the all-jobs
 * leaderboard and it has a page, files and an archive; the browser is sent to that page.
 *
 * <p>A refused import answers the form again with the reason and the field it names, with the
 * status the error maps to (400 for bad input, 403 outside the data roots); nothing is left behind.
 * Uploads are bounded by the endpoint's {@code --max-message-bytes} (413 beyond).
 */
public final class ImportPages {
  /** The most BEIR folders the form suggests. */
  static final int MAX_SUGGESTIONS = 200;

  private final JobManager jobs;
  private final boolean tokens;

  /**
   * @param jobs the service's jobs, which imports join
   * @param tokens whether the service takes tokens (pages show Sign out)
   */
  public ImportPages(JobManager jobs, boolean tokens) {
    this.jobs = jobs;
    this.tokens = tokens;
  }

  /** The routes to serve beside {@link EvalWebUi#routes}. */
  public List<WebRoute> routes() {
    return List.of(
        WebRoute.get("/import", Access.PAGE, request -> Response.html(page(Map.of(), null))),
        WebRoute.post("/import/run", Access.PAGE, this::importRun),
        WebRoute.post("/import/archive", Access.PAGE, this::importArchive),
        // where a browser lands after signing in from a form sent without a session, or reloads
        WebRoute.get("/import/run", Access.PAGE, request -> Response.redirect("/import#run-form")),
        WebRoute.get(
            "/import/archive", Access.PAGE, request -> Response.redirect("/import#archive-form")));
  }

  private Response importRun(Request request) {
    Map<String, String> fields = new LinkedHashMap<>();
    try {
      Map<String, FormPart> form = form(request);
      form.forEach((name, part) -> fields.put(name, part.isFile() ? "" : part.text().strip()));
      FormPart run = file(form, "run");
      String name = required(fields, "name");
      if (name.codePoints().anyMatch(Character::isWhitespace) || name.length() > 100) {
        throw new InvalidInputException(
            "name", "name " + SafeText.quote(name) + " must be one word of at most 100 characters");
      }
      String split = fields.getOrDefault("split", "");
      split = split.isEmpty() ? BeirDatasetReader.DEFAULT_SPLIT : split;
      Path dataset =
          jobs.admission().localDataset("dataset", fields.getOrDefault("dataset", ""), split);
      int topK = topK(fields.getOrDefault("top_k", ""));
      JobTask task =
          ExternalRun.task(
              dataset,
              split,
              fields.get("task"),
              fields.get("benchmark"),
              fields.get("language"),
              storedTasks());
      String description =
          "# results imported through the web UI\n"
              + "import: trec-run\n"
              + "run_file: "
              + yaml(run.fileName())
              + "\nsystem: "
              + yaml(ExternalRun.FAMILY + ":" + name)
              + "\ndataset: "
              + yaml(dataset.toString())
              + "\nsplit: "
              + yaml(split)
              + "\ntask: "
              + yaml(task.benchmark() + "/" + task.task())
              + "\ntop_k: "
              + topK
              + "\n";
      JobManager.Snapshot job =
          jobs.importResults(
              "import " + name,
              description,
              folder -> {
                ResultImport.trecRun(folder, run.bytes(), run.fileName(), name, task, topK);
                return 1;
              });
      return Response.redirect("/jobs/" + urlPath(job.id()));
    } catch (TenbinException e) {
      return refused(e, fields);
    }
  }

  private Response importArchive(Request request) {
    Map<String, String> fields = new LinkedHashMap<>();
    try {
      Map<String, FormPart> form = form(request);
      form.forEach((name, part) -> fields.put(name, part.isFile() ? "" : part.text().strip()));
      FormPart archive = file(form, "archive");
      String name = fields.getOrDefault("job_name", "");
      String shownName =
          name.isEmpty() ? "import " + archive.fileName() : SafeText.escaped(name, 200);
      String description =
          "# results imported through the web UI\n"
              + "import: job-archive\n"
              + "archive: "
              + yaml(archive.fileName())
              + "\nbytes: "
              + archive.bytes().length
              + "\n";
      JobManager.Snapshot job =
          jobs.importResults(
              shownName,
              description,
              folder ->
                  ResultImport.jobArchive(
                          folder, new ByteArrayInputStream(archive.bytes()), "archive")
                      .size());
      return Response.redirect("/jobs/" + urlPath(job.id()));
    } catch (TenbinException e) {
      return refused(e, fields);
    }
  }

  /** The form's parts by name (the first of a name). */
  private static Map<String, FormPart> form(Request request) {
    Map<String, FormPart> parts = new LinkedHashMap<>();
    for (FormPart part : request.multipart()) {
      parts.putIfAbsent(part.name(), part);
    }
    return parts;
  }

  private static FormPart file(Map<String, FormPart> form, String name) {
    FormPart part = form.get(name);
    if (part == null || !part.isFile() || part.bytes().length == 0) {
      throw new InvalidInputException(name, name + " is required: choose a file to upload");
    }
    return part;
  }

  private static String required(Map<String, String> fields, String name) {
    String value = fields.getOrDefault(name, "");
    if (value.isEmpty()) {
      throw new InvalidInputException(name, name + " is required");
    }
    return value;
  }

  private static int topK(String raw) {
    if (raw.isEmpty()) {
      return 100;
    }
    try {
      int topK = Integer.parseInt(raw);
      if (topK >= 1 && topK <= 10_000) {
        return topK;
      }
    } catch (NumberFormatException e) {
      // answered below
    }
    throw new InvalidInputException(
        "top_k", "top_k must be a whole number within 1..10000, got " + SafeText.quote(raw));
  }

  /** The tasks of every stored cell of the service's jobs: a run of one of them joins its rows. */
  private List<TaskRef> storedTasks() {
    Set<TaskRef> tasks = new LinkedHashSet<>();
    for (JobManager.Snapshot job : jobs.list()) {
      Path folder = job.outputDirectory();
      if (folder != null && Files.isDirectory(folder.resolve("cells"))) {
        try {
          ResultStore.existing(folder, "job_id")
              .readAll(ResultStore.Rankings.LEFT_IN_FILE)
              .forEach(cell -> tasks.add(cell.key().task()));
        } catch (RuntimeException e) {
          // a folder that cannot be read lends nothing
        }
      }
    }
    return List.copyOf(tasks);
  }

  private Response refused(TenbinException e, Map<String, String> fields) {
    StatusMapper.HttpFailure failure = StatusMapper.toHttp(e);
    String problem =
        (e.field() == null || e.field().isEmpty() ? "" : e.field() + ": ") + e.getMessage();
    return Response.bytes(
        failure.status(),
        "text/html; charset=utf-8",
        page(fields, problem).getBytes(StandardCharsets.UTF_8));
  }

  private static String yaml(String value) {
    return "'" + (value == null ? "" : value).replace("'", "''").replaceAll("[\\r\\n]", " ") + "'";
  }

  // ---- the page

  private String page(Map<String, String> fields, String problem) {
    StringBuilder body = new StringBuilder("<h1>Import results</h1>\n");
    if (problem != null) {
      body.append("<p class=\"error\" role=\"alert\" id=\"import-error\">")
          .append(escape(problem))
          .append("</p>\n");
    }
    body.append(
        "<p>Results made elsewhere become a finished job of their own: they join the"
            + " <a href=\"/leaderboard\">leaderboard</a> and can be compared and downloaded like"
            + " any job's.</p>\n");
    body.append("<h2 id=\"run-form\">A TREC run</h2>\n")
        .append(
            "<p>Evaluated on a BEIR folder of this service's data roots (qid Q0 docid rank score"
                + " tag; ordered as trec_eval orders it, ties by docid descending). A task stored"
                + " by another job lends its benchmark and language, so the run joins its"
                + " rows.</p>\n")
        .append(
            "<form class=\"stacked\" method=\"post\" action=\"/import/run\""
                + " enctype=\"multipart/form-data\">\n")
        .append(fileInput("run", "Run file"))
        .append(textInput(fields, "name", "System name (reported as external:NAME)", true))
        .append(datasetInput(fields))
        .append(textInput(fields, "split", "Qrels split (default test)", false))
        .append(textInput(fields, "task", "Task name (default: the folder's name)", false))
        .append(textInput(fields, "benchmark", "Benchmark, for a new task", false))
        .append(textInput(fields, "language", "Language code, for a new task (default und)", false))
        .append(textInput(fields, "top_k", "Depth kept per query (default 100)", false))
        .append("<button type=\"submit\">Import the run</button>\n</form>\n");
    body.append("<h2 id=\"archive-form\">A job folder</h2>\n")
        .append(
            "<p>A zip of a job folder: the archive a job's page gives on another service, or a zip"
                + " of a <code>tenbin run</code> folder. Its stored cells are read back before"
                + " the import counts.</p>\n")
        .append(
            "<form class=\"stacked\" method=\"post\" action=\"/import/archive\""
                + " enctype=\"multipart/form-data\">\n")
        .append(fileInput("archive", "Zip archive"))
        .append(textInput(fields, "job_name", "Job name (default: the file's name)", false))
        .append("<button type=\"submit\">Import the job folder</button>\n</form>\n");
    return PageLayout.page("Import results", tokens, "", body.toString());
  }

  private static String fileInput(String name, String label) {
    return input(name, label, "type=\"file\" required");
  }

  private static String textInput(
      Map<String, String> fields, String name, String label, boolean required) {
    return input(
        name,
        label,
        "value=\"" + escape(fields.getOrDefault(name, "")) + "\"" + (required ? " required" : ""));
  }

  /** A labelled input whose id and name are {@code name}; {@code attributes} already HTML. */
  private static String input(String name, String label, String attributes) {
    return "<label for=\""
        + name
        + "\">"
        + escape(label)
        + "</label>\n<input id=\""
        + name
        + "\" name=\""
        + name
        + "\" "
        + attributes
        + ">\n";
  }

  private String datasetInput(Map<String, String> fields) {
    StringBuilder out =
        new StringBuilder(
                input(
                    "dataset",
                    "BEIR folder (relative to the first data root, or absolute)",
                    "list=\"datasets\" required value=\""
                        + escape(fields.getOrDefault("dataset", ""))
                        + "\""))
            .append("<datalist id=\"datasets\">\n");
    for (String folder : datasetSuggestions()) {
      out.append("<option value=\"").append(escape(folder)).append("\">\n");
    }
    return out.append("</datalist>\n").toString();
  }

  /**
   * BEIR folders (with {@code corpus.jsonl} or {@code corpus.jsonl.gz}) at most three levels below
   * the data roots, relative to the first root when inside it, in path order.
   */
  List<String> datasetSuggestions() {
    List<String> found = new ArrayList<>();
    List<Path> roots = jobs.admission().dataRoots();
    for (Path root : roots) {
      try (Stream<Path> paths = Files.walk(root, 3)) {
        paths
            .filter(Files::isDirectory)
            .filter(
                dir ->
                    Files.isRegularFile(dir.resolve("corpus.jsonl"))
                        || Files.isRegularFile(dir.resolve("corpus.jsonl.gz")))
            .sorted()
            .limit(MAX_SUGGESTIONS)
            .forEach(
                dir ->
                    found.add(
                        dir.startsWith(roots.getFirst()) && !dir.equals(roots.getFirst())
                            ? roots.getFirst().relativize(dir).toString()
                            : dir.toString()));
      } catch (IOException | RuntimeException e) {
        // an unreadable root suggests nothing
      }
    }
    return found.stream().distinct().limit(MAX_SUGGESTIONS).toList();
  }
}
