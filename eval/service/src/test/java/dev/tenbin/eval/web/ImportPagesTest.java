package dev.tenbin.eval.web;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenbin.eval.job.JobLauncher;
import dev.tenbin.eval.job.JobManager;
import dev.tenbin.eval.job.JobOutcome;
import dev.tenbin.eval.job.JobRequest;
import dev.tenbin.eval.job.ServiceFolders;
import dev.tenbin.eval.server.EvalServer;
import dev.tenbin.eval.server.EvalServiceConfig;
import dev.tenbin.eval.store.CellKey;
import dev.tenbin.eval.store.CellRecord;
import dev.tenbin.eval.store.ResultStore;
import dev.tenbin.eval.store.StoredDoc;
import dev.tenbin.eval.store.StoredQuery;
import dev.tenbin.eval.testing.CellKeys;
import dev.tenbin.rpc.ServerSecurity;
import dev.tenbin.rpc.ServerSettings;
import dev.tenbin.scoring.metrics.TieAwareValue;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipOutputStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Results made elsewhere added through the web UI ({@link ImportPages}) of a real {@link
 * EvalServer} on loopback with bearer tokens: a TREC run evaluated on a BEIR folder of the data
 * root, and a job folder sent back as the zip another job's page gives. Each becomes a finished job
 * whose cells join the all-jobs leaderboard; every refusal leaves nothing behind.
 */
class ImportPagesTest {
  private static final String TOKEN = "0123456789abcdef0123456789abcdef";
  private static final String SPEC = "name: stored\ntask_sets: [tasks.yaml]\nretrievers: [bm25]\n";
  private static final String TASKS =
      "name: b\ntasks:\n  - {name: t, language: en, source: {hub: owner/data, revision: main}}\n";

  @TempDir Path tmp;
  private EvalServer.Running running;
  private String storedJob;

  /**
   * The data root holds {@code mini/}: three documents, two queries, one relevant document each
   * (q1: d1, q2: d3). A job has stored one BM25 cell of the task {@code mini} in benchmark {@code
   * minibench}, language {@code de}.
   */
  @BeforeEach
  void start() throws Exception {
    Path data = Files.createDirectories(tmp.resolve("data/mini/qrels"));
    Files.writeString(
        data.getParent().resolve("corpus.jsonl"),
        """
        {"_id": "d1", "title": "", "text": "alpha beta"}
        {"_id": "d2", "title": "", "text": "gamma delta"}
        {"_id": "d3", "title": "", "text": "epsilon zeta"}
        """);
    Files.writeString(
        data.getParent().resolve("queries.jsonl"),
        """
        {"_id": "q1", "text": "alpha"}
        {"_id": "q2", "text": "zeta"}
        """);
    Files.writeString(
        data.resolve("test.tsv"), "query-id\tcorpus-id\tscore\nq1\td1\t1\nq2\td3\t1\n");
    Path tokens = tmp.resolve("tokens");
    Files.writeString(tokens, TOKEN + "\n");
    ServiceFolders folders =
        new ServiceFolders(
            tmp.resolve("state"), tmp.resolve("results"), List.of(tmp.resolve("data")));
    EvalServiceConfig config =
        new EvalServiceConfig(
                ServerSettings.ephemeral()
                    .withSecurity(ServerSecurity.plaintext().withAuthTokenFile(tokens)),
                folders,
                new JobLauncher.Options(
                    null, null, null, tmp.resolve("models"), tmp.resolve("cache")))
            .withHttpPort(0);
    JobManager jobs =
        JobManager.open(
            folders,
            (job, listener, cancellation) -> {
              ResultStore.open(job.directory()).append(storedCell());
              listener.planned(1, 0);
              listener.cellStored(storedCell());
              return new JobOutcome(1, 0, 1, List.of(), false, 1);
            });
    running = EvalServer.serve(config, jobs);
    storedJob =
        jobs.submit(
                new JobRequest(
                    SPEC, List.of(new JobRequest.TaskSetDocument("tasks.yaml", TASKS, "")), "out"))
            .id();
    long until = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    while (!jobs.get(storedJob).state().finished()) {
      assertThat(System.nanoTime()).as("waited for the stored job").isLessThan(until);
      Thread.sleep(20);
    }
  }

  @AfterEach
  void stop() {
    if (running != null) {
      running.close();
    }
  }

  private static CellRecord storedCell() {
    CellKey key =
        CellKeys.key()
            .benchmark("minibench")
            .dataset("mini")
            .task("mini")
            .language("de")
            .system("bm25", "bm25")
            .build();
    return new CellRecord(
        CellRecord.FORMAT_VERSION,
        "c".repeat(64),
        key,
        Map.of(),
        Map.of(),
        Map.of("ndcg@10", 1.0),
        Map.of("ndcg@10", new TieAwareValue(1.0, 1.0, 1.0, 0, 0)),
        Map.of(),
        Map.of(),
        List.of(
            new StoredQuery("q1", Map.of("ndcg@10", 1.0), List.of(new StoredDoc("d1", 2.0, 1))),
            new StoredQuery("q2", Map.of("ndcg@10", 1.0), List.of(new StoredDoc("d3", 2.0, 1)))),
        "2026-11-23T00:00:00Z");
  }

  // ---- the requests

  /** A multipart/form-data body: plain fields, and files as {@code name -> [fileName, bytes]}. */
  private static final class Form {
    private final String boundary = "----tenbin-test-boundary-7f3a";
    private final ByteArrayOutputStream body = new ByteArrayOutputStream();

    Form field(String name, String value) {
      write(
          "--"
              + boundary
              + "\r\nContent-Disposition: form-data; name=\""
              + name
              + "\"\r\n\r\n"
              + value
              + "\r\n");
      return this;
    }

    Form file(String name, String fileName, byte[] bytes) {
      write(
          "--"
              + boundary
              + "\r\nContent-Disposition: form-data; name=\""
              + name
              + "\"; filename=\""
              + fileName
              + "\"\r\nContent-Type: application/octet-stream\r\n\r\n");
      body.writeBytes(bytes);
      write("\r\n");
      return this;
    }

    byte[] bytes() {
      ByteArrayOutputStream all = new ByteArrayOutputStream();
      all.writeBytes(body.toByteArray());
      all.writeBytes(("--" + boundary + "--\r\n").getBytes(StandardCharsets.UTF_8));
      return all.toByteArray();
    }

    private void write(String text) {
      body.writeBytes(text.getBytes(StandardCharsets.UTF_8));
    }
  }

  private HttpResponse<String> post(String path, Form form, boolean withToken) throws Exception {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + running.host().httpPort() + path))
            .timeout(Duration.ofSeconds(60))
            .header("Content-Type", "multipart/form-data; boundary=" + form.boundary)
            .POST(HttpRequest.BodyPublishers.ofByteArray(form.bytes()));
    if (withToken) {
      request.header("Authorization", "Bearer " + TOKEN);
    }
    return client().send(request.build(), HttpResponse.BodyHandlers.ofString());
  }

  private HttpResponse<byte[]> get(String path) throws Exception {
    return client()
        .send(
            HttpRequest.newBuilder(
                    URI.create("http://127.0.0.1:" + running.host().httpPort() + path))
                .header("Authorization", "Bearer " + TOKEN)
                .timeout(Duration.ofSeconds(60))
                .build(),
            HttpResponse.BodyHandlers.ofByteArray());
  }

  private static HttpClient client() {
    return HttpClient.newBuilder()
        .version(HttpClient.Version.HTTP_1_1)
        .followRedirects(HttpClient.Redirect.NEVER)
        .build();
  }

  /** The id of the job a successful import redirected to. */
  private static String importedJob(HttpResponse<String> response) {
    assertThat(response.statusCode()).as(response.body()).isEqualTo(303);
    String location = response.headers().firstValue("Location").orElseThrow();
    assertThat(location).startsWith("/jobs/job-");
    return location.substring("/jobs/".length());
  }

  /** A run of the mini task: q1 finds d1 first; q2 ranks d2 (not relevant) above d3. */
  private static final String RUN =
      """
      q1 Q0 d1 1 3.5 handmade
      q1 Q0 d2 2 1.0 handmade
      q2 Q0 d2 1 2.0 handmade
      q2 Q0 d3 2 1.5 handmade
      q9 Q0 d1 1 1.0 handmade
      """;

  private Form runForm() {
    return new Form()
        .file("run", "handmade.trec", RUN.getBytes(StandardCharsets.UTF_8))
        .field("name", "handmade")
        .field("dataset", "mini");
  }

  // ---- the tests

  @Test
  void aTrecRunBecomesAFinishedJobWhoseCellJoinsTheStoredTasksLeaderboard() throws Exception {
    String id = importedJob(post("/import/run", runForm(), true));

    JobManager.Snapshot job = running.jobs().get(id);
    assertThat(job.state()).isEqualTo(JobManager.State.SUCCEEDED);
    assertThat(job.cellsDone()).isEqualTo(1);
    Path folder = running.jobs().directory(id);
    assertThat(folder.getParent().getFileName().toString()).isEqualTo(JobManager.IMPORTS_FOLDER);
    assertThat(folder.resolve("imported/handmade.trec")).hasContent(RUN);

    List<CellRecord> cells = ResultStore.existing(folder, "job").readAll();
    assertThat(cells).hasSize(1);
    CellRecord cell = cells.getFirst();
    assertThat(cell.key().system().name()).isEqualTo("external:handmade");
    // the stored job's task of the same name lends its benchmark and language
    assertThat(cell.key().task().benchmark()).isEqualTo("minibench");
    assertThat(cell.key().task().language()).isEqualTo("de");
    // nDCG@10 by hand: q1 has its relevant document first (1); q2 has it second, 1/log2(3);
    // q9 is no evaluated query and is left out
    double q2 = 1 / (Math.log(3) / Math.log(2));
    assertThat(cell.queries()).hasSize(2);
    assertThat(cell.metrics().get("ndcg@10")).isCloseTo((1 + q2) / 2, within());

    String page = new String(get("/jobs/" + id).body(), StandardCharsets.UTF_8);
    assertThat(page).contains("import: trec-run", "external:handmade", "imported/handmade.trec");
    String leaderboard = new String(get("/leaderboard?language=de").body(), StandardCharsets.UTF_8);
    assertThat(leaderboard).contains("external:handmade", "bm25");
  }

  @Test
  void anImportedJobIsStillThereAfterARestartAndItsFolderTakesNoSubmittedJob() throws Exception {
    String id = importedJob(post("/import/run", runForm(), true));
    List<CellRecord> before = ResultStore.existing(running.jobs().directory(id), "job").readAll();
    running.close();
    running = null;

    ServiceFolders folders =
        new ServiceFolders(
            tmp.resolve("state"), tmp.resolve("results"), List.of(tmp.resolve("data")));
    try (JobManager reopened =
        JobManager.open(
            folders,
            (job, listener, cancellation) -> {
              throw new AssertionError("an imported job is never run");
            })) {
      JobManager.Snapshot job = reopened.get(id);
      assertThat(job.state()).isEqualTo(JobManager.State.SUCCEEDED);
      assertThat(job.cellsDone()).isEqualTo(1);
      assertThat(ResultStore.existing(reopened.directory(id), "job").readAll()).isEqualTo(before);
      assertThat(reopened.request(id).specYaml()).contains("import: trec-run");
      // a job submitted into the imports folder would hold the imported job's folder
      org.assertj.core.api.Assertions.assertThatThrownBy(
              () ->
                  reopened.submit(
                      new JobRequest(
                          SPEC,
                          List.of(new JobRequest.TaskSetDocument("tasks.yaml", TASKS, "")),
                          JobManager.IMPORTS_FOLDER)))
          .hasMessageContaining("holds the folder of job " + id);
    }
  }

  @Test
  void withoutTheTokenNothingIsImported() throws Exception {
    HttpResponse<String> refused = post("/import/run", runForm(), false);
    assertThat(refused.statusCode()).isEqualTo(303);
    String login = refused.headers().firstValue("Location").orElseThrow();
    assertThat(login).isEqualTo("/login?next=%2Fimport%2Frun");
    // after signing in the browser asks for that path: it is sent to the form again
    HttpResponse<byte[]> back = get("/import/run");
    assertThat(back.statusCode()).isEqualTo(303);
    assertThat(back.headers().firstValue("Location")).contains("/import#run-form");
    HttpResponse<byte[]> page =
        client()
            .send(
                HttpRequest.newBuilder(
                        URI.create("http://127.0.0.1:" + running.host().httpPort() + "/import"))
                    .build(),
                HttpResponse.BodyHandlers.ofByteArray());
    assertThat(page.statusCode()).isEqualTo(303);
    assertThat(running.jobs().list()).hasSize(1);
    assertThat(tmp.resolve("results").resolve(JobManager.IMPORTS_FOLDER)).doesNotExist();
  }

  @Test
  void theFormSuggestsTheDataRootsBeirFolders() throws Exception {
    String page = new String(get("/import").body(), StandardCharsets.UTF_8);
    assertThat(page)
        .contains("action=\"/import/run\"", "action=\"/import/archive\"")
        .contains("enctype=\"multipart/form-data\"", "<option value=\"mini\">");
  }

  @Test
  void badImportsAreRefusedNamingTheFieldAndLeaveNothingBehind() throws Exception {
    record Case(Form form, int status, String field) {}
    byte[] run = RUN.getBytes(StandardCharsets.UTF_8);
    List<Case> cases =
        List.of(
            new Case(new Form().field("name", "x").field("dataset", "mini"), 400, "run:"),
            new Case(new Form().file("run", "r.trec", run).field("dataset", "mini"), 400, "name:"),
            new Case(
                new Form()
                    .file("run", "r.trec", run)
                    .field("name", "two words")
                    .field("dataset", "mini"),
                400,
                "name:"),
            new Case(
                new Form()
                    .file("run", "r.trec", run)
                    .field("name", "x")
                    .field("dataset", "../outside"),
                403,
                "dataset:"),
            new Case(
                new Form().file("run", "r.trec", run).field("name", "x").field("dataset", "/etc"),
                403,
                "dataset:"),
            new Case(
                new Form()
                    .file("run", "r.trec", run)
                    .field("name", "x")
                    .field("dataset", "nothing-here"),
                400,
                "dataset:"),
            new Case(
                new Form()
                    .file("run", "r.trec", run)
                    .field("name", "x")
                    .field("dataset", "mini")
                    .field("top_k", "0"),
                400,
                "top_k:"),
            new Case(
                new Form()
                    .file("run", "r.trec", "not a run\n".getBytes(StandardCharsets.UTF_8))
                    .field("name", "x")
                    .field("dataset", "mini"),
                400,
                "run: &#39;r.trec&#39; line 1"));
    for (Case c : cases) {
      HttpResponse<String> response = post("/import/run", c.form(), true);
      assertThat(response.statusCode()).as(response.body()).isEqualTo(c.status());
      assertThat(response.body()).contains("id=\"import-error\"", c.field());
    }
    assertThat(running.jobs().list()).hasSize(1);
    assertThat(importFolders()).isEmpty();
  }

  @Test
  void aJobsArchiveImportedAgainHoldsTheSameCells() throws Exception {
    HttpResponse<byte[]> archive = get("/jobs/" + storedJob + "/archive");
    assertThat(archive.statusCode()).isEqualTo(200);

    String id =
        importedJob(
            post(
                "/import/archive",
                new Form()
                    .file("archive", storedJob + ".zip", archive.body())
                    .field("job_name", "from another service"),
                true));

    JobManager.Snapshot job = running.jobs().get(id);
    assertThat(job.name()).isEqualTo("from another service");
    assertThat(job.state()).isEqualTo(JobManager.State.SUCCEEDED);
    List<CellRecord> original =
        ResultStore.existing(running.jobs().directory(storedJob), "job").readAll();
    List<CellRecord> imported = ResultStore.existing(running.jobs().directory(id), "job").readAll();
    assertThat(imported).isEqualTo(original);
    // the zip's top folder (the job id) is the job folder itself
    assertThat(running.jobs().directory(id).resolve("cells")).isDirectory();
  }

  @Test
  void hostileOrEmptyArchivesAreRefusedAndLeaveNothingBehind() throws Exception {
    Path elsewhere = tmp.resolve("elsewhere");
    ResultStore.open(elsewhere).append(storedCell());
    Map<String, byte[]> stored = new java.util.TreeMap<>();
    try (Stream<Path> files = Files.walk(elsewhere)) {
      for (Path file : files.filter(Files::isRegularFile).toList()) {
        stored.put(elsewhere.relativize(file).toString(), Files.readAllBytes(file));
      }
    }
    Map<String, byte[]> traversal = Map.of("../escaped.txt", "x".getBytes(StandardCharsets.UTF_8));
    Map<String, byte[]> absolute = Map.of("/tmp/absolute.txt", new byte[] {1});
    Map<String, byte[]> noCells = Map.of("job/leaderboard.md", new byte[] {1});
    Map<String, byte[]> badCell =
        Map.of(
            "cells/" + "d".repeat(64) + ".cell.json", "{not json".getBytes(StandardCharsets.UTF_8));
    for (Map<String, byte[]> entries : List.of(traversal, absolute, noCells, badCell)) {
      HttpResponse<String> response =
          post("/import/archive", new Form().file("archive", "a.zip", zip(entries)), true);
      assertThat(response.statusCode()).as(response.body()).isEqualTo(400);
      assertThat(response.body()).contains("archive:").doesNotContain(tmp.toString());
    }
    HttpResponse<String> notZip =
        post(
            "/import/archive",
            new Form().file("archive", "a.zip", "plain text".getBytes(StandardCharsets.UTF_8)),
            true);
    assertThat(notZip.statusCode()).isEqualTo(400);
    assertThat(tmp.resolve("results/escaped.txt")).doesNotExist();
    assertThat(tmp.resolve("results/imports/escaped.txt")).doesNotExist();
    assertThat(running.jobs().list()).hasSize(1);
    assertThat(importFolders()).isEmpty();
    // a good cell under its own name is accepted
    String id =
        importedJob(
            post("/import/archive", new Form().file("archive", "a.zip", zip(stored)), true));
    assertThat(ResultStore.existing(running.jobs().directory(id), "job").readAll())
        .containsExactly(storedCell());
  }

  private List<Path> importFolders() throws IOException {
    Path imports = tmp.resolve("results").resolve(JobManager.IMPORTS_FOLDER);
    if (!Files.isDirectory(imports)) {
      return List.of();
    }
    try (Stream<Path> children = Files.list(imports)) {
      return children.toList();
    }
  }

  private static byte[] zip(Map<String, byte[]> entries) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (ZipOutputStream zip = new ZipOutputStream(out)) {
      for (var entry : new java.util.TreeMap<>(entries).entrySet()) {
        zip.putNextEntry(new ZipEntry(entry.getKey()));
        zip.write(entry.getValue());
        zip.closeEntry();
      }
    }
    return out.toByteArray();
  }

  private static org.assertj.core.data.Offset<Double> within() {
    return org.assertj.core.data.Offset.offset(1e-12);
  }
}
