package dev.tenbin.eval.web;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tenbin.eval.job.JobFileDigests;
import dev.tenbin.eval.job.JobFiles;
import dev.tenbin.eval.job.JobLauncher;
import dev.tenbin.eval.job.JobListener;
import dev.tenbin.eval.job.JobManager;
import dev.tenbin.eval.job.JobOutcome;
import dev.tenbin.eval.job.JobRequest;
import dev.tenbin.eval.job.ServiceFolders;
import dev.tenbin.eval.report.JobReports;
import dev.tenbin.eval.server.EvalServer;
import dev.tenbin.eval.server.EvalServiceConfig;
import dev.tenbin.eval.store.CellKey;
import dev.tenbin.eval.store.CellRecord;
import dev.tenbin.eval.store.ResultStore;
import dev.tenbin.eval.store.StoredDoc;
import dev.tenbin.eval.store.StoredQuery;
import dev.tenbin.eval.testing.CellKeys;
import dev.tenbin.proto.eval.v1.EvalServiceGrpc;
import dev.tenbin.proto.eval.v1.ReadJobFileRequest;
import dev.tenbin.rpc.HttpEndpoint;
import dev.tenbin.rpc.ServerSecurity;
import dev.tenbin.rpc.ServerSettings;
import dev.tenbin.scoring.metrics.TieAwareValue;
import dev.tenbin.testing.rpc.TestCertificates;
import dev.tenbin.testing.rpc.TestHttp;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.Writer;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.zip.ZipEntry;
import java.util.zip.ZipInputStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The eval service's web UI over a real {@link EvalServer} on loopback (its HTTP endpoint, its gRPC
 * side, its job table) with a tiny job: the executor stores two cells itself and writes the job's
 * reports with {@link JobReports}, as the service's inline executor does.
 */
class EvalWebUiTest {
  static final String TOKEN = "0123456789abcdef0123456789abcdef";
  private static final String SPEC =
      "name: tiny-web\ntask_sets: [tasks.yaml]\nretrievers: [bm25]\n";
  private static final String TASKS =
      "name: b\ntasks:\n  - {name: t, language: en, source: {hub: owner/data, revision: main}}\n";

  @TempDir Path tmp;
  private final CountDownLatch release = new CountDownLatch(1);
  private final CountDownLatch firstStored = new CountDownLatch(1);
  private EvalServer.Running running;
  private TestCertificates.Authority ca;

  @AfterEach
  void stop() {
    release.countDown();
    if (running != null) {
      running.close();
    }
  }

  /** Cells the tiny job stores after its two: more systems and languages for a browser test. */
  List<CellRecord> moreCells = List.of();

  /** The service's data roots: BEIR folders a browser test imports a run against. */
  List<Path> dataRoots = List.of();

  /**
   * Plans two cells (and {@link #moreCells}), stores one, waits to be released, stores the rest,
   * writes reports.
   */
  private JobOutcome tinyJob(Path directory, JobListener listener) {
    ResultStore store = ResultStore.open(directory);
    listener.planned(2 + moreCells.size(), 0);
    listener.progress(0, "bm25 on b/tiny");
    store.append(cell("a".repeat(64), "tiny-a", 0.5));
    listener.cellStored(cell("a".repeat(64), "tiny-a", 0.5));
    firstStored.countDown();
    try {
      release.await(30, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    store.append(cell("b".repeat(64), "tiny-b", 0.75));
    listener.cellStored(cell("b".repeat(64), "tiny-b", 0.75));
    for (CellRecord more : moreCells) {
      store.append(more);
      listener.cellStored(more);
    }
    JobReports.write(
        directory, new PrintWriter(Writer.nullWriter()), new PrintWriter(Writer.nullWriter()));
    return new JobOutcome(2 + moreCells.size(), 0, 2 + moreCells.size(), List.of(), false, 1);
  }

  static CellRecord cell(String fingerprint, String task, double ndcg) {
    return cell(
        fingerprint,
        CellKeys.key().dataset("tiny").task(task).system("bm25", "bm25").build(),
        ndcg);
  }

  /** A stored cell of {@code key}: one query, two ranked documents, nDCG@10 {@code ndcg}. */
  static CellRecord cell(String fingerprint, CellKey key, double ndcg) {
    return new CellRecord(
        CellRecord.FORMAT_VERSION,
        fingerprint,
        key,
        Map.of(),
        Map.of(),
        Map.of("ndcg@10", ndcg),
        Map.of("ndcg@10", new TieAwareValue(ndcg, ndcg, ndcg, 0, 0)),
        Map.of(),
        Map.of(),
        List.of(
            new StoredQuery(
                "q1",
                Map.of("ndcg@10", ndcg),
                List.of(new StoredDoc("d1", 1.5, 1), new StoredDoc("d2", 1.0, 2)))),
        "2026-11-23T00:00:00Z");
  }

  /** Starts the service with {@code security} and submits the tiny job; returns its id. */
  String start(ServerSecurity security) {
    ServiceFolders folders =
        new ServiceFolders(tmp.resolve("state"), tmp.resolve("results"), dataRoots);
    EvalServiceConfig config =
        new EvalServiceConfig(
                ServerSettings.ephemeral().withSecurity(security),
                folders,
                new JobLauncher.Options(
                    null, null, null, tmp.resolve("models"), tmp.resolve("cache")))
            .withHttpPort(0);
    JobManager jobs =
        JobManager.open(
            folders, (job, listener, cancellation) -> tinyJob(job.directory(), listener));
    running = EvalServer.serve(config, jobs);
    return jobs.submit(
            new JobRequest(
                SPEC, List.of(new JobRequest.TaskSetDocument("tasks.yaml", TASKS, "")), "out"))
        .id();
  }

  TestHttp http() {
    return TestHttp.plaintext(running.host().httpPort());
  }

  Path folder(String id) throws IOException {
    return running.jobs().directory(id).toRealPath();
  }

  /** Waits until the tiny job stored its first cell; it then waits for {@link #awaitFinished}. */
  void awaitFirstStored() throws InterruptedException {
    assertThat(firstStored.await(60, TimeUnit.SECONDS)).as("the first cell stored").isTrue();
  }

  void awaitFinished(String id) throws InterruptedException {
    release.countDown();
    long until = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    while (!running.jobs().get(id).state().finished()) {
      assertThat(System.nanoTime()).as("waited for the job to finish").isLessThan(until);
      Thread.sleep(20);
    }
  }

  static HttpResponse<byte[]> bytes(TestHttp http, String path, String... headers) {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(URI.create(http.base() + path)).timeout(Duration.ofSeconds(60));
    if (headers.length > 0) {
      request.headers(headers);
    }
    try {
      return HttpClient.newBuilder()
          .version(HttpClient.Version.HTTP_1_1)
          .build()
          .send(request.build(), HttpResponse.BodyHandlers.ofByteArray());
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  @Test
  void theJobListShowsTheJobAndItsProgressReachingDone() throws Exception {
    String id = start(ServerSecurity.plaintext());
    TestHttp http = http();
    assertThat(firstStored.await(30, TimeUnit.SECONDS)).isTrue();

    HttpResponse<String> list = http.get("/jobs");
    assertThat(list.statusCode()).isEqualTo(200);
    assertThat(list.headers().firstValue("Content-Type")).contains("text/html; charset=utf-8");
    assertThat(list.body())
        .contains("data-job=\"" + id + "\"", "href=\"/jobs/" + id + "\"", "tiny-web")
        .contains(">RUNNING<", ">1 of 2<")
        .contains("http-equiv=\"refresh\"", "fetch('/api/jobs'")
        .contains("<a href=\"/leaderboard\">Leaderboard</a>")
        .doesNotContain("Sign out");
    JsonNode running = TestHttp.json(http.get("/api/jobs")).get("jobs").get(0);
    assertThat(running.get("id").asText()).isEqualTo(id);
    assertThat(running.get("state").asText()).isEqualTo("RUNNING");
    assertThat(running.get("cells_done").asInt()).isEqualTo(1);
    assertThat(running.get("cells_total").asInt()).isEqualTo(2);
    assertThat(running.get("eta_seconds").isNumber()).isTrue();

    awaitFinished(id);
    JsonNode done = TestHttp.json(http.get("/api/jobs")).get("jobs").get(0);
    assertThat(done.get("state").asText()).isEqualTo("SUCCEEDED");
    assertThat(done.get("cells_done").asInt()).isEqualTo(2);
    assertThat(done.get("eta_seconds").isNull()).isTrue();
    assertThat(http.get("/").body())
        .contains(">SUCCEEDED<", ">2 of 2<")
        .doesNotContain("http-equiv=\"refresh\"");
  }

  @Test
  void theJobPageShowsItsCellsSpecEventsAndLinksItsReportsWhoseBytesAreThoseOnDisk()
      throws Exception {
    String id = start(ServerSecurity.plaintext());
    awaitFinished(id);
    TestHttp http = http();
    Path folder = folder(id);

    String page = http.get("/jobs/" + id).body();
    assertThat(page)
        .contains("Job " + id, ">SUCCEEDED<", "ndcg@10", "0.5000", "0.7500", "tiny-web")
        .contains("retrievers: [bm25]", "Task set tasks.yaml", "owner/data")
        .containsPattern("<pre id=\"events\">\\S+  submitted  into ")
        .contains("  succeeded  2/2 cells")
        .contains("href=\"/jobs/" + id + "/files/leaderboard.html\"")
        .contains("href=\"/jobs/" + id + "/archive\"");

    List<JobFiles.JobFile> files = JobFiles.list(folder.getParent(), folder, new JobFileDigests());
    assertThat(files)
        .extracting(JobFiles.JobFile::path)
        .contains("leaderboard.html", "leaderboard.json");
    for (JobFiles.JobFile file : files) {
      HttpResponse<byte[]> got = bytes(http, "/jobs/" + id + "/files/" + file.path());
      assertThat(got.statusCode()).as(file.path()).isEqualTo(200);
      assertThat(got.body())
          .as(file.path())
          .isEqualTo(Files.readAllBytes(folder.resolve(file.path())));
    }
    HttpResponse<byte[]> report = bytes(http, "/jobs/" + id + "/files/leaderboard.html");
    assertThat(report.headers().firstValue("Content-Type")).contains("text/html; charset=utf-8");
    assertThat(report.headers().firstValue("Content-Security-Policy"))
        .contains("sandbox allow-scripts");
    HttpResponse<byte[]> download = bytes(http, "/jobs/" + id + "/files/leaderboard.md?download=1");
    assertThat(download.headers().firstValue("Content-Disposition"))
        .contains("attachment; filename=\"leaderboard.md\"");
    HttpResponse<String> head =
        http.send(
            HttpRequest.newBuilder(
                    URI.create(http.base() + "/jobs/" + id + "/files/leaderboard.md"))
                .method("HEAD", HttpRequest.BodyPublishers.noBody())
                .build());
    assertThat(head.statusCode()).isEqualTo(200);
    assertThat(head.body()).isEmpty();

    assertThat(http.get("/jobs/job-nope").statusCode()).isEqualTo(404);
    assertThat(http.get("/jobs/" + id + "/files/no-such-file").statusCode()).isEqualTo(404);
    assertThat(http.get("/jobs/" + id + "/elsewhere").statusCode()).isEqualTo(404);

    // The all-jobs leaderboard: the job's rows, linked to the job's page by its id.
    String leaderboard = http.get("/leaderboard").body();
    assertThat(leaderboard)
        .contains("bm25", "href=\"/jobs/" + id + "\"")
        .contains("<a href=\"/leaderboard#compare-form\">Compare</a>");
    // A comparison without its two rows is refused, naming the parameter.
    HttpResponse<String> unnamed = http.get("/compare");
    assertThat(unnamed.statusCode()).isEqualTo(400);
    assertThat(unnamed.body()).contains("a");
  }

  @Test
  void theArchiveHoldsEveryFileOfTheJobInPathOrderWithTheSameBytesEveryTime() throws Exception {
    String id = start(ServerSecurity.plaintext());
    awaitFinished(id);
    Path folder = folder(id);
    Files.writeString(folder.resolve(".lock"), "held");
    Files.writeString(folder.resolve(".x.tmp"), "half-written");
    HttpResponse<byte[]> archive = bytes(http(), "/jobs/" + id + "/archive");
    assertThat(archive.statusCode()).isEqualTo(200);
    assertThat(archive.headers().firstValue("Content-Type")).contains("application/zip");

    Map<String, byte[]> entries = new LinkedHashMap<>();
    try (ZipInputStream zip = new ZipInputStream(new ByteArrayInputStream(archive.body()))) {
      for (ZipEntry entry = zip.getNextEntry(); entry != null; entry = zip.getNextEntry()) {
        entries.put(entry.getName(), zip.readAllBytes());
      }
    }
    List<JobFiles.JobFile> files = JobFiles.list(folder.getParent(), folder, new JobFileDigests());
    List<String> expected = new ArrayList<>();
    files.forEach(file -> expected.add(id + "/" + file.path()));
    assertThat(entries.keySet()).containsExactlyElementsOf(expected);
    for (JobFiles.JobFile file : files) {
      assertThat(entries.get(id + "/" + file.path()))
          .isEqualTo(Files.readAllBytes(folder.resolve(file.path())));
    }
    assertThat(bytes(http(), "/jobs/" + id + "/archive").body()).isEqualTo(archive.body());
  }

  @Test
  void traversalAbsolutePathsAndLinksAreRefusedAsTheGrpcApiRefusesThem() throws Exception {
    String id = start(ServerSecurity.plaintext());
    awaitFinished(id);
    Path folder = folder(id);
    Files.writeString(tmp.resolve("state").resolve("secret.txt"), "secret");
    Path outside = Files.createDirectories(tmp.resolve("outside"));
    Files.writeString(outside.resolve("secret.txt"), "secret");
    Files.createSymbolicLink(folder.resolve("linked-folder"), outside);
    Files.createSymbolicLink(folder.resolve("linked.txt"), outside.resolve("secret.txt"));

    ManagedChannel channel =
        ManagedChannelBuilder.forAddress("127.0.0.1", running.host().port()).usePlaintext().build();
    try {
      EvalServiceGrpc.EvalServiceBlockingStub grpc = EvalServiceGrpc.newBlockingStub(channel);
      Map<String, Integer> attempts = new LinkedHashMap<>();
      attempts.put("../../state/secret.txt", 403);
      attempts.put("cells/../../../state/secret.txt", 403);
      attempts.put("/etc/hostname", 400);
      attempts.put("linked-folder/secret.txt", 403);
      attempts.put("linked.txt", 403);
      for (Map.Entry<String, Integer> attempt : attempts.entrySet()) {
        String path = attempt.getKey();
        Status.Code code = grpcRefusal(grpc, id, path);
        assertThat(code).as(path).isIn(Status.Code.PERMISSION_DENIED, Status.Code.INVALID_ARGUMENT);
        assertThat(attempt.getValue())
            .as(path + " is refused over HTTP as gRPC refuses it (" + code + ")")
            .isEqualTo(code == Status.Code.PERMISSION_DENIED ? 403 : 400);
        // encoded so no client or server normalises the path away
        String encoded = path.replace(".", "%2e").replace("/", "%2f");
        for (String sent : List.of(path.replace("..", "%2e%2e"), encoded)) {
          HttpResponse<byte[]> refused = bytes(http(), "/jobs/" + id + "/files/" + sent);
          assertThat(refused.statusCode()).as(sent).isIn(400, 403);
          assertThat(new String(refused.body(), java.nio.charset.StandardCharsets.UTF_8))
              .as(sent)
              .doesNotContain("secret\n")
              .isNotEqualTo("secret");
        }
        HttpResponse<byte[]> plain =
            bytes(http(), "/jobs/" + id + "/files/" + path.replace("..", "%2e%2e"));
        assertThat(plain.statusCode()).as(path).isEqualTo(attempt.getValue());
      }
    } finally {
      channel.shutdownNow();
    }
  }

  private static Status.Code grpcRefusal(
      EvalServiceGrpc.EvalServiceBlockingStub grpc, String id, String path) {
    try {
      grpc.readJobFile(ReadJobFileRequest.newBuilder().setJobId(id).setPath(path).build())
          .forEachRemaining(chunk -> {});
      return Status.Code.OK;
    } catch (StatusRuntimeException e) {
      return e.getStatus().getCode();
    }
  }

  /** Every UI route that needs a token, as a request path (prefix routes with a real rest). */
  private static Map<String, String> protectedPaths(String id) {
    Map<String, String> paths = new LinkedHashMap<>();
    paths.put("/", "page");
    paths.put("/jobs", "page");
    paths.put("/api/jobs", "api");
    paths.put("/jobs/" + id, "page");
    paths.put("/jobs/" + id + "/files/leaderboard.md", "api");
    paths.put("/jobs/" + id + "/archive", "api");
    paths.put("/leaderboard", "page");
    paths.put("/compare", "page");
    return paths;
  }

  @Test
  void withTokensEveryRouteRefusesWithoutCookieOrHeaderAndServesWithEither() throws Exception {
    Path tokens = Files.writeString(tmp.resolve("tokens"), TOKEN + "\n");
    String id = start(ServerSecurity.plaintext().withAuthTokenFile(tokens));
    awaitFinished(id);
    TestHttp http = http();

    // every protected route of the UI is in the list below
    EvalWebUi ui =
        new EvalWebUi(
            running.jobs(),
            new WarehousePages(running.jobs(), tmp.resolve("other-state"), true),
            true,
            new JobFileDigests());
    Map<String, String> paths = protectedPaths(id);
    for (HttpEndpoint.WebRoute route : ui.routes()) {
      if (route.access().apply(route.prefix() ? id : "") != HttpEndpoint.Access.OPEN) {
        assertThat(paths.keySet())
            .as(route.path())
            .anyMatch(p -> route.prefix() ? p.startsWith(route.path()) : p.equals(route.path()));
      }
    }

    String cookie = signIn(http, TOKEN, "/jobs/" + id);
    for (Map.Entry<String, String> entry : paths.entrySet()) {
      String path = entry.getKey();
      HttpResponse<byte[]> none = bytes(http, path);
      HttpResponse<byte[]> forged =
          bytes(http, path, "Cookie", HttpEndpoint.SESSION_COOKIE + "=" + "ab".repeat(32));
      HttpResponse<byte[]> wrongBearer =
          bytes(http, path, "Authorization", "Bearer " + "x".repeat(32));
      for (HttpResponse<byte[]> refused : List.of(none, forged, wrongBearer)) {
        if (entry.getValue().equals("page")) {
          assertThat(refused.statusCode()).as(path).isEqualTo(303);
          assertThat(refused.headers().firstValue("Location").orElseThrow())
              .as(path)
              .startsWith("/login?next=");
        } else {
          assertThat(refused.statusCode()).as(path).isEqualTo(401);
        }
        assertThat(new String(refused.body(), java.nio.charset.StandardCharsets.UTF_8))
            .as(path)
            .doesNotContain(id + "/", "retrievers", "ndcg");
      }
      // Signed in, /compare names no rows: refused for its parameters (400), not for the token.
      int served = path.equals("/compare") ? 400 : 200;
      assertThat(bytes(http, path, "Cookie", cookie).statusCode()).as(path).isEqualTo(served);
      assertThat(bytes(http, path, "Authorization", "Bearer " + TOKEN).statusCode())
          .as(path)
          .isEqualTo(served);
    }
    assertThat(http.get("/jobs").headers().firstValue("Location")).contains("/login?next=%2Fjobs");
    assertThat(http.get("/login").body()).contains("type=\"password\"", "name=\"token\"");
    assertThat(bytes(http, "/jobs", "Cookie", cookie).body()).asString().contains("Sign out");

    HttpResponse<String> wrong =
        post(http, "/login", "token=not-the-token-0123456789&next=%2Fjobs");
    assertThat(wrong.statusCode()).isEqualTo(401);
    assertThat(wrong.body()).contains("not accepted");
    assertThat(wrong.headers().firstValue("Set-Cookie")).isEmpty();
    // sign-in sends back to this service only
    HttpResponse<String> away =
        post(http, "/login", "token=" + TOKEN + "&next=%2F%2Fevil.example%2F");
    assertThat(away.headers().firstValue("Location")).contains("/jobs");
    HttpResponse<String> logout = post(http, "/logout", "");
    assertThat(logout.headers().firstValue("Set-Cookie").orElseThrow()).contains("Max-Age=0");
    assertThat(logout.headers().firstValue("Location")).contains("/login");
  }

  static HttpResponse<String> post(TestHttp http, String path, String form) {
    return http.send(
        HttpRequest.newBuilder(URI.create(http.base() + path))
            .header("Content-Type", "application/x-www-form-urlencoded")
            .POST(HttpRequest.BodyPublishers.ofString(form))
            .build());
  }

  /** Signs in through the form; returns the {@code Cookie} header value. */
  static String signIn(TestHttp http, String token, String next) {
    HttpResponse<String> login =
        post(
            http,
            "/login",
            "token="
                + token
                + "&next="
                + java.net.URLEncoder.encode(next, java.nio.charset.StandardCharsets.UTF_8));
    assertThat(login.statusCode()).isEqualTo(303);
    assertThat(login.headers().firstValue("Location")).contains(next);
    String setCookie = login.headers().firstValue("Set-Cookie").orElseThrow();
    assertThat(setCookie).contains("HttpOnly", "SameSite=Strict", "Path=/").doesNotContain(token);
    return setCookie.substring(0, setCookie.indexOf(';'));
  }

  @Test
  void overTlsThePagesAreServedAndTheSessionCookieIsSecure() throws Exception {
    ca = TestCertificates.authority("web-ca");
    TestCertificates.Issued server = ca.issue("localhost");
    Path tokens = Files.writeString(tmp.resolve("tokens"), TOKEN + "\n");
    String id =
        start(
            ServerSecurity.plaintext()
                .withTls(
                    server.writeCertificate(tmp.resolve("server.pem")),
                    server.writeKey(tmp.resolve("server.key")),
                    null)
                .withAuthTokenFile(tokens));
    awaitFinished(id);
    TestHttp https = TestHttp.https(running.host().httpPort(), ca, null);
    HttpResponse<String> login = post(https, "/login", "token=" + TOKEN + "&next=%2Fjobs");
    String setCookie = login.headers().firstValue("Set-Cookie").orElseThrow();
    assertThat(setCookie).contains("; Secure", "HttpOnly", "SameSite=Strict");
    HttpResponse<String> page =
        https.send(
            HttpRequest.newBuilder(URI.create(https.base() + "/jobs/" + id))
                .header("Cookie", setCookie.substring(0, setCookie.indexOf(';')))
                .build());
    assertThat(page.statusCode()).isEqualTo(200);
    assertThat(page.body()).contains("Job " + id);
    TestHttp plaintext = TestHttp.plaintext(running.host().httpPort());
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> plaintext.get("/jobs"))
        .isInstanceOf(RuntimeException.class);
  }

  @Test
  void valuesArePrintedEscapedAndSignInOnlyReturnsToThisService() {
    assertThat(PageLayout.escape("<script>\"a\" & 'b'</script>"))
        .isEqualTo("&lt;script&gt;&quot;a&quot; &amp; &#39;b&#39;&lt;/script&gt;");
    assertThat(EvalWebUi.safeNext("/jobs/x?y=1")).isEqualTo("/jobs/x?y=1");
    for (String away : List.of("//evil.example/", "https://evil.example/", "/\\evil", "", "jobs")) {
      assertThat(EvalWebUi.safeNext(away)).as(away).isEqualTo("/jobs");
    }
    assertThat(PageLayout.urlPath("a b/c?d")).isEqualTo("a%20b/c%3Fd");
  }
}
