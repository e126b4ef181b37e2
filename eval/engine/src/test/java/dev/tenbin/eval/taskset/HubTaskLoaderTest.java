package dev.tenbin.eval.taskset;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tenbin.core.InvalidInputException;
import dev.tenbin.eval.taskset.DatasetSource.HubDataset;
import dev.tenbin.scoring.beir.AnswerSpan;
import dev.tenbin.scoring.beir.CorpusDocument;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class HubTaskLoaderTest {
  private static final String SHA_A = "a".repeat(40);
  private static final String SHA_B = "b".repeat(40);

  @TempDir Path tmp;
  private FakeHub hub;
  private Path cache;

  @BeforeEach
  void startHub() throws Exception {
    hub = new FakeHub();
    cache = tmp.resolve("cache");
  }

  @AfterEach
  void stopHub() {
    hub.close();
  }

  private LoadedTask load(String repository, String revision, String split, String token) {
    TaskSpec task =
        new TaskSpec(
            "task",
            "task",
            "en",
            "science",
            "",
            new HubDataset(repository, revision, split, Map.of(), ""));
    TaskSetSpec spec = new TaskSetSpec("set", "", "", List.of(task), tmp);
    return new TaskLoader(cache, new HubDatasetClient(hub.endpoint(), cache, token))
        .load(spec, task);
  }

  private LoadedTask load(String repository, String revision) {
    return load(repository, revision, "train", null);
  }

  @Test
  void aParquetTaskIsDownloadedAtTheResolvedCommitAndReadAsBeir() throws Exception {
    hub.publish("owner/nano", "main", SHA_A, HubRepositories.parquet(tmp.resolve("repo"), "train"));

    LoadedTask loaded = load("owner/nano", "main");

    assertThat(loaded.datasetSha()).isEqualTo("hub:owner/nano@" + SHA_A + "/train");
    assertThat(loaded.dataset().corpus())
        .containsExactly(
            new CorpusDocument("d1", "Apples", "apples grow on trees"),
            new CorpusDocument("d2", "", "bananas grow in plantations"),
            new CorpusDocument("d3", "", "the train leaves at noon"));
    assertThat(loaded.dataset().evaluatedQueryIds()).containsExactly("q1", "q2");
    assertThat(loaded.dataset().qrels().judgments("q2")).containsEntry("d3", 2);
    assertThat(loaded.provenance())
        .containsEntry("source", "hub")
        .containsEntry("repository", "owner/nano")
        .containsEntry("revision", "main")
        .containsEntry("sha", SHA_A)
        .containsEntry("corpus_files", "corpus/train-00000-of-00001.parquet");

    Path snapshot = cache.resolve("datasets/owner/nano").resolve(SHA_A);
    assertThat(loaded.dataset().directory()).isEqualTo(snapshot.resolve("beir/train"));
    assertThat(snapshot.resolve("qrels/train-00000-of-00001.parquet")).isRegularFile();
    JsonNode manifest = new ObjectMapper().readTree(snapshot.resolve("resolved.json").toFile());
    assertThat(manifest.path("repository").asText()).isEqualTo("owner/nano");
    assertThat(manifest.path("revision").asText()).isEqualTo("main");
    assertThat(manifest.path("sha").asText()).isEqualTo(SHA_A);
    assertThat(manifest.path("downloaded_at").asText()).isNotEmpty();
    assertThat(manifest.path("files").path("corpus/train-00000-of-00001.parquet").asLong())
        .isEqualTo(Files.size(snapshot.resolve("corpus/train-00000-of-00001.parquet")));
  }

  @Test
  void aCommitShaRevisionLoadsFromTheCacheWithoutAnyRequest() throws Exception {
    hub.publish("owner/nano", "main", SHA_A, HubRepositories.parquet(tmp.resolve("repo"), "train"));
    LoadedTask first = load("owner/nano", SHA_A);
    assertThat(hub.requestPaths())
        .hasSize(4)
        .first()
        .isEqualTo("/api/datasets/owner/nano/revision/" + SHA_A);
    hub.clearRequests();

    LoadedTask second = load("owner/nano", SHA_A);

    assertThat(hub.requests()).isEmpty();
    assertThat(second.datasetSha()).isEqualTo(first.datasetSha());
    assertThat(second.dataset().corpus().toList()).isEqualTo(first.dataset().corpus().toList());
  }

  @Test
  void aBranchRevisionIsResolvedAgainAndFollowsTheBranch() throws Exception {
    hub.publish(
        "owner/nano", "main", SHA_A, HubRepositories.parquet(tmp.resolve("repo-a"), "train"));
    load("owner/nano", "main");
    hub.clearRequests();

    LoadedTask again = load("owner/nano", "main");
    assertThat(hub.requestPaths()).containsExactly("/api/datasets/owner/nano/revision/main");
    assertThat(again.datasetSha()).endsWith(SHA_A + "/train");

    hub.publish("owner/nano", "main", SHA_B, HubRepositories.jsonl(tmp.resolve("repo-b")));
    LoadedTask moved = load("owner/nano", "main");
    assertThat(moved.datasetSha()).isEqualTo("hub:owner/nano@" + SHA_B + "/train");
    assertThat(moved.provenance()).containsEntry("corpus_files", "corpus.jsonl");
  }

  @Test
  void aMultiTaskRepositoryServesTheSplitOfEachTask() throws Exception {
    hub.publish(
        "owner/NanoBEIR-en",
        "main",
        SHA_A,
        HubRepositories.parquet(tmp.resolve("repo"), "NanoA", "NanoB"));

    LoadedTask b = load("owner/NanoBEIR-en", "main", "NanoB", null);

    assertThat(b.datasetSha()).isEqualTo("hub:owner/NanoBEIR-en@" + SHA_A + "/NanoB");
    assertThat(b.provenance())
        .containsEntry("corpus_files", "corpus/NanoB-00000-of-00001.parquet")
        .containsEntry("qrels_files", "qrels/NanoB-00000-of-00001.parquet");
    assertThat(hub.requestPaths()).noneMatch(path -> path.contains("NanoA"));
  }

  @Test
  void jsonLinesGzipAndTsvQrelsAreReadToo() throws Exception {
    hub.publish("owner/lines", "main", SHA_A, HubRepositories.jsonl(tmp.resolve("repo")));

    LoadedTask loaded = load("owner/lines", "main");

    assertThat(loaded.dataset().corpus())
        .extracting(CorpusDocument::title)
        .containsExactly("Apples", "", "");
    assertThat(loaded.dataset().queries()).containsEntry("q2", "train times");
    assertThat(loaded.dataset().qrels().judgments("q1"))
        .as("score defaults to 1")
        .containsEntry("d1", 1);
    assertThat(loaded.provenance())
        .containsEntry("queries_files", "queries/train.jsonl.gz")
        .containsEntry("qrels_files", "qrels/train.tsv");
  }

  @Test
  void answerSpansOfTheRepositoryAreReadAsSpanQrels() throws Exception {
    Path repo = HubRepositories.jsonl(tmp.resolve("repo"));
    Files.createDirectories(repo.resolve("spans"));
    Files.writeString(
        repo.resolve("spans/train.jsonl"),
        """
        {"query_id": "q1", "corpus_id": "d1", "start": 0, "end": 6}
        {"query_id": "q1", "corpus_id": "d1", "start": 7, "end": 11}
        {"query_id": "q2", "corpus_id": "d3", "start": 4, "end": 9}
        """);
    hub.publish("owner/spans", "main", SHA_A, repo);

    LoadedTask loaded = load("owner/spans", "main");

    assertThat(loaded.dataset().spans().span("q1"))
        .as("the earliest of a query's spans")
        .contains(new AnswerSpan("d1", 0, 6, "apples grow on trees".length()));
    assertThat(loaded.dataset().spans().span("q2")).map(AnswerSpan::start).contains(4);
    assertThat(loaded.provenance()).containsEntry("spans_files", "spans/train.jsonl");
    assertThat(loaded.dataset().directory().resolve("qrels/spans.tsv")).isRegularFile();
  }

  @Test
  void aRepositoryWithoutSpansLoadsWithoutThem() throws Exception {
    hub.publish("owner/lines", "main", SHA_A, HubRepositories.jsonl(tmp.resolve("repo")));

    LoadedTask loaded = load("owner/lines", "main");

    assertThat(loaded.dataset().spans().queryIds()).isEmpty();
    assertThat(loaded.provenance()).doesNotContainKey("spans_files");
  }

  @Test
  void aSpanOutsideItsDocumentIsRefusedNamingTheLine() throws Exception {
    Path repo = HubRepositories.jsonl(tmp.resolve("repo"));
    Files.createDirectories(repo.resolve("spans"));
    Files.writeString(
        repo.resolve("spans/train.tsv"), "query-id\tcorpus-id\tstart\tend\nq1\td1\t0\t999\n");
    hub.publish("owner/spans", "main", SHA_A, repo);

    assertThatThrownBy(() -> load("owner/spans", "main"))
        .hasMessageContaining("spans.tsv")
        .hasMessageContaining("line 2");
  }

  @Test
  void anUnknownRevisionIsAnInputErrorNamingRepositoryAndRevision() throws Exception {
    hub.publish("owner/nano", "main", SHA_A, HubRepositories.parquet(tmp.resolve("repo"), "train"));
    assertThatThrownBy(() -> load("owner/nano", "v9"))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("owner/nano")
        .hasMessageContaining("'v9'")
        .hasMessageContaining("HTTP 404");
    assertThatThrownBy(() -> load("owner/absent", "main"))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("no dataset owner/absent");
  }

  @Test
  void aSplitWithoutFilesNamesThePatternsTried() throws Exception {
    hub.publish("owner/nano", "main", SHA_A, HubRepositories.parquet(tmp.resolve("repo"), "train"));
    assertThatThrownBy(() -> load("owner/nano", "main", "dev", null))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("no corpus file for config 'corpus' and split 'dev'")
        .hasMessageContaining("corpus/dev-*.parquet");
  }

  @Test
  void theTokenIsSentAsBearerAuthorization() throws Exception {
    hub.publish("owner/nano", "main", SHA_A, HubRepositories.parquet(tmp.resolve("repo"), "train"));
    load("owner/nano", "main", "train", "hf_secret");
    assertThat(hub.requests())
        .hasSize(4)
        .allMatch(r -> "Bearer hf_secret".equals(r.authorization()));

    hub.clearRequests();
    load("owner/nano", "main");
    assertThat(hub.requests()).isNotEmpty().allMatch(r -> r.authorization() == null);
  }

  @Test
  void anUnreachableHubIsNamedByUrl() throws Exception {
    int closedPort;
    try (ServerSocket socket = new ServerSocket(0)) {
      closedPort = socket.getLocalPort();
    }
    HubDatasetClient client =
        new HubDatasetClient("http://127.0.0.1:" + closedPort + "/", cache, null);
    assertThatThrownBy(
            () -> client.fetch(new HubDataset("owner/nano", "main", "train", Map.of(), "")))
        .isInstanceOf(UncheckedIOException.class)
        .hasMessageContaining(
            "cannot reach the hub at http://127.0.0.1:"
                + closedPort
                + "/api/datasets/owner/nano/revision/main: ")
        .hasMessageContaining("The hub is http://127.0.0.1:" + closedPort + " (HF_ENDPOINT")
        .hasMessageContaining("To work offline, pin the task's revision to a commit SHA")
        .hasMessageNotContaining("null");
  }

  @Test
  void aReasonIsNeverNull() {
    assertThat(dev.tenbin.core.FailureReasons.of(new java.net.ConnectException()))
        .isEqualTo("connection refused");
    assertThat(
            dev.tenbin.core.FailureReasons.of(
                new java.io.IOException(new java.net.ConnectException())))
        .isEqualTo("connection refused");
    assertThat(dev.tenbin.core.FailureReasons.of(new java.io.IOException("Connection reset")))
        .isEqualTo("Connection reset");
  }

  @Test
  void theEnvironmentChoosesEndpointAndToken() {
    assertThat(HubDatasetClient.fromEnvironment(Map.of(), cache).endpoint())
        .isEqualTo("https://huggingface.co");
    assertThat(
            HubDatasetClient.fromEnvironment(
                    Map.of("HF_ENDPOINT", "https://mirror.example/"), cache)
                .endpoint())
        .isEqualTo("https://mirror.example");
  }
}
