package dev.tenbin.eval.job;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tenbin.core.InvalidInputException;
import dev.tenbin.core.PermissionDeniedException;
import dev.tenbin.core.TenbinException;
import dev.tenbin.eval.taskset.DatasetSource.LocalBeir;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the eval service accepts at submit time: paths confined to its data roots and results root
 * ({@code ..}, absolute paths and symbolic links that lead out are PERMISSION_DENIED naming the
 * field), no environment expansion, and messages that never show file contents.
 */
class JobAdmissionTest {
  private static final String SPEC = "name: j\ntask_sets: [tasks.yaml]\nretrievers: [bm25]\n";
  private static final String SECRET = "SECRET-7f3a-do-not-echo";

  @TempDir Path tmp;
  private Path data;
  private Path results;
  private Path outside;
  private JobAdmission admission;

  @BeforeEach
  void setUp() throws Exception {
    data = Files.createDirectories(tmp.resolve("data"));
    results = tmp.resolve("results");
    outside = Files.createDirectories(tmp.resolve("outside"));
    beir(data.resolve("tiny"));
    beir(outside.resolve("private"));
    Files.writeString(outside.resolve("secret.txt"), SECRET + "\n" + SECRET + ": [x\n");
    admission = JobAdmission.of(new ServiceFolders(tmp.resolve("state"), results, List.of(data)));
  }

  private static void beir(Path folder) throws Exception {
    Files.createDirectories(folder.resolve("qrels"));
    Files.writeString(
        folder.resolve("corpus.jsonl"), "{\"_id\": \"d1\", \"text\": \"" + SECRET + "\"}\n");
    Files.writeString(folder.resolve("queries.jsonl"), "{\"_id\": \"q1\", \"text\": \"q\"}\n");
    Files.writeString(folder.resolve("qrels/test.tsv"), "query-id\tcorpus-id\tscore\nq1\td1\t1\n");
  }

  private static String tasks(String path) {
    return "name: b\ntasks:\n  - {name: t, language: en, source: {hub: o/hub, revision: main}}\n"
        + "  - {name: local, language: en, source: {path: \""
        + path
        + "\"}}\n";
  }

  private AdmittedJob admit(String taskSet, String out) {
    return admission.admit(
        "job-000000000001",
        new JobRequest(
            SPEC,
            List.of(
                new JobRequest.TaskSetDocument(
                    "tasks.yaml", taskSet, tmp.resolve("client").toString())),
            out));
  }

  private void refused(
      Class<? extends TenbinException> type, String field, String taskSet, String out) {
    assertThatThrownBy(() -> admit(taskSet, out))
        .isInstanceOfSatisfying(
            type,
            e -> {
              assertThat(e.field()).isEqualTo(field);
              assertThat(e.getMessage()).doesNotContain(SECRET).hasSizeLessThan(1000);
            });
  }

  @Test
  void aSpecWithoutShardsTakesTheServicesDefaultAndOneWithShardsKeepsItsOwn() throws Exception {
    String taskSet = tasks(data.resolve("tiny").toString());
    assertThat(admit(taskSet, "runs/s1").spec().shards()).isEqualTo(1);
    admission = admission.withDefaultShards(3);
    AdmittedJob defaulted = admit(taskSet, "runs/s3");
    assertThat(defaulted.spec().shards()).isEqualTo(3);
    AdmittedJob own =
        admission.admit(
            "job-000000000002",
            new JobRequest(
                SPEC + "shards: 2\n",
                List.of(
                    new JobRequest.TaskSetDocument(
                        "tasks.yaml", taskSet, tmp.resolve("client").toString())),
                "runs/s2"));
    assertThat(own.spec().shards()).isEqualTo(2);
    assertThatThrownBy(() -> admission.withDefaultShards(0))
        .hasMessageContaining("--default-shards must be within 1..64, got 0");
  }

  @Test
  void aSpecWithoutReplicasTakesTheServicesDefaultAndOneWithReplicasKeepsItsOwn() throws Exception {
    String taskSet = tasks(data.resolve("tiny").toString());
    assertThat(admit(taskSet, "runs/r1").spec().replicas()).isEqualTo(1);
    admission = admission.withDefaultReplicas(3);
    assertThat(admit(taskSet, "runs/r3").spec().replicas()).isEqualTo(3);
    AdmittedJob own =
        admission.admit(
            "job-000000000003",
            new JobRequest(
                SPEC + "replicas: 2\n",
                List.of(
                    new JobRequest.TaskSetDocument(
                        "tasks.yaml", taskSet, tmp.resolve("client").toString())),
                "runs/r2"));
    assertThat(own.spec().replicas()).isEqualTo(2);
    assertThatThrownBy(() -> admission.withDefaultReplicas(9))
        .hasMessageContaining("--default-replicas must be within 1..8, got 9");
    for (String bad : List.of("0", "9", "two", "1.5")) {
      assertThatThrownBy(
              () ->
                  admission.admit(
                      "job-000000000004",
                      new JobRequest(
                          SPEC + "replicas: " + bad + "\n",
                          List.of(
                              new JobRequest.TaskSetDocument(
                                  "tasks.yaml", taskSet, tmp.resolve("client").toString())),
                          "runs/bad")))
          .as(bad)
          .isInstanceOfSatisfying(
              InvalidInputException.class,
              e -> {
                assertThat(e.field()).isEqualTo("spec_yaml.replicas");
                assertThat(e.getMessage()).contains("must be a whole number within 1..8");
              });
    }
  }

  @Test
  void aJobInsideTheRootsIsAdmittedWithRealPaths() throws Exception {
    AdmittedJob job = admit(tasks(data.resolve("tiny").toString()), "runs/a");
    assertThat(job.directory()).isEqualTo(results.toRealPath().resolve("runs/a"));
    assertThat(job.taskSets().getFirst().task("local").orElseThrow().source())
        .isEqualTo(new LocalBeir(data.resolve("tiny").toRealPath()));
    assertThat(job.spec().name()).isEqualTo("j");
    assertThat(admit(tasks("../data/tiny"), results.resolve("runs/b").toString()).directory())
        .isEqualTo(results.toRealPath().resolve("runs/b"));
  }

  @Test
  void aPathThatReachesARootThroughALinkIsAcceptedAsItsRealPath() throws Exception {
    Files.createDirectories(results);
    Path alias = Files.createSymbolicLink(tmp.resolve("alias"), results);
    assertThat(
            admit(tasks(data.resolve("tiny").toString()), alias.resolve("runs/c").toString())
                .directory())
        .isEqualTo(results.toRealPath().resolve("runs/c"));
    Path dataAlias = Files.createSymbolicLink(tmp.resolve("data-alias"), data);
    assertThat(
            admit(tasks(dataAlias.resolve("tiny").toString()), "o")
                .taskSets()
                .getFirst()
                .task("local")
                .orElseThrow()
                .source())
        .isEqualTo(new LocalBeir(data.resolve("tiny").toRealPath()));
  }

  @Test
  void outputFoldersOutsideTheResultsRootAreDenied() throws Exception {
    String local = tasks(data.resolve("tiny").toString());
    refused(PermissionDeniedException.class, "output_dir", local, "/etc/x");
    refused(PermissionDeniedException.class, "output_dir", local, "../../../tmp/x");
    refused(PermissionDeniedException.class, "output_dir", local, "runs/../../outside/x");
    refused(PermissionDeniedException.class, "output_dir", local, outside.resolve("x").toString());
    Files.createDirectories(results);
    Files.createSymbolicLink(results.resolve("link"), outside);
    refused(PermissionDeniedException.class, "output_dir", local, "link/x");
    refused(PermissionDeniedException.class, "output_dir", local, "link");
    Files.createSymbolicLink(results.resolve("dangling"), tmp.resolve("nowhere"));
    refused(PermissionDeniedException.class, "output_dir", local, "dangling/x");
    refused(InvalidInputException.class, "output_dir", local, ".");
    refused(InvalidInputException.class, "output_dir", local, "");
    assertThat(outside.resolve("x")).doesNotExist();
  }

  @Test
  void aLengthTokenizerPathMustLieInsideTheDataRoots() throws Exception {
    String local = tasks(data.resolve("tiny").toString());
    Files.writeString(data.resolve("tokenizer.json"), "{}");
    Files.writeString(outside.resolve("tokenizer.json"), SECRET);
    java.util.function.Function<String, JobRequest> withTokenizer =
        tokenizer ->
            new JobRequest(
                SPEC + "positions: {tokenizer: \"" + tokenizer + "\"}\n",
                List.of(
                    new JobRequest.TaskSetDocument(
                        "tasks.yaml", local, tmp.resolve("client").toString())),
                "o");

    assertThat(
            admission
                .admit("job-1", withTokenizer.apply("tokenizer.json"))
                .spec()
                .positions()
                .tokenizer())
        .isEqualTo(data.toRealPath().resolve("tokenizer.json").toString());
    assertThat(
            admission
                .admit("job-2", withTokenizer.apply("e5-small-v2"))
                .spec()
                .positions()
                .tokenizer())
        .as("a built-in id reads no file")
        .isEqualTo("e5-small-v2");
    for (String escape :
        List.of(outside.resolve("tokenizer.json").toString(), "../outside/tokenizer.json")) {
      assertThatThrownBy(() -> admission.admit("job-3", withTokenizer.apply(escape)))
          .isInstanceOfSatisfying(
              PermissionDeniedException.class,
              e -> {
                assertThat(e.field()).isEqualTo("spec_yaml.positions.tokenizer");
                assertThat(e.getMessage()).doesNotContain(SECRET);
              });
    }
  }

  @Test
  void datasetPathsOutsideTheDataRootsAreDeniedNamingTheTaskSetField() throws Exception {
    String field = "task_sets[0].tasks[1].source.path";
    refused(
        PermissionDeniedException.class, field, tasks(outside.resolve("private").toString()), "o");
    refused(PermissionDeniedException.class, field, tasks("../outside/private"), "o");
    refused(
        PermissionDeniedException.class,
        field,
        tasks(data.resolve("tiny/../../outside/private").toString()),
        "o");
    refused(PermissionDeniedException.class, field, tasks("/etc"), "o");
    Files.createSymbolicLink(data.resolve("escape"), outside.resolve("private"));
    refused(PermissionDeniedException.class, field, tasks(data.resolve("escape").toString()), "o");
    assertThatThrownBy(() -> admit(tasks(data.resolve("escape").toString()), "o"))
        .hasMessageContaining("symbolic link");
  }

  @Test
  void aFileOfADatasetThatLinksOutOfTheDataRootsIsDenied() throws Exception {
    Path folder = data.resolve("sneaky");
    beir(folder);
    Files.delete(folder.resolve("corpus.jsonl"));
    Files.createSymbolicLink(folder.resolve("corpus.jsonl"), outside.resolve("secret.txt"));
    refused(
        PermissionDeniedException.class,
        "task_sets[0].tasks[1].source.path",
        tasks(folder.toString()),
        "o");
  }

  @Test
  void aTasksFromFolderWhoseEntriesLinkOutIsDenied() throws Exception {
    Path collections = Files.createDirectories(data.resolve("collections"));
    beir(collections.resolve("fine"));
    Files.createSymbolicLink(collections.resolve("linked"), outside.resolve("private"));
    refused(
        PermissionDeniedException.class,
        "task_sets[0].tasks_from",
        "name: b\ntasks_from: " + collections + "\n",
        "o");
    refused(
        PermissionDeniedException.class,
        "task_sets[0].tasks_from.path",
        "name: b\ntasks_from: {path: " + outside + "}\n",
        "o");
    Files.delete(collections.resolve("linked"));
    assertThat(
            admit("name: b\ntasks_from: " + collections + "\n", "o").taskSets().getFirst().tasks())
        .hasSize(1);
  }

  @Test
  void environmentVariablesAndHomeAreNotExpandedInSubmittedTaskSets() {
    String home = System.getProperty("user.home");
    for (String path : List.of("${HOME}/data", "~/data", "${TENBIN_NOT_SET}/x")) {
      assertThatThrownBy(() -> admit(tasks(path), "o"))
          .isInstanceOfSatisfying(
              InvalidInputException.class,
              e -> {
                assertThat(e.field()).isEqualTo("task_sets[0].tasks[1].source.path");
                assertThat(e.getMessage()).contains("not expanded").doesNotContain(home + "/data");
              });
    }
  }

  @Test
  void withoutDataRootsLocalDatasetsAreDeniedAndHubOnesAccepted() throws Exception {
    JobAdmission hubOnly = JobAdmission.of(ServiceFolders.under(tmp.resolve("state2")));
    JobRequest local =
        new JobRequest(
            SPEC,
            List.of(
                new JobRequest.TaskSetDocument(
                    "tasks.yaml", tasks(data.resolve("tiny").toString()), "")),
            "o");
    assertThatThrownBy(() -> hubOnly.admit("job-000000000001", local))
        .isInstanceOfSatisfying(
            PermissionDeniedException.class,
            e -> assertThat(e.getMessage()).contains("no data roots"));
    String hub =
        "name: b\ntasks:\n  - {name: t, language: en, source: {hub: o/hub, revision: main}}\n";
    AdmittedJob job =
        hubOnly.admit(
            "job-000000000001",
            new JobRequest(
                SPEC, List.of(new JobRequest.TaskSetDocument("tasks.yaml", hub, "")), "o"));
    assertThat(job.directory())
        .startsWithRaw(tmp.resolve("state2").resolve("results").toRealPath());
  }

  @Test
  void onlyTheSelectedTasksNeedTheirDataButEveryPathMustBeInside() {
    String spec = "task_sets: [tasks.yaml]\ntasks: [t]\nretrievers: [bm25]\n";
    JobRequest missingButUnselected =
        new JobRequest(
            spec,
            List.of(
                new JobRequest.TaskSetDocument(
                    "tasks.yaml", tasks(data.resolve("absent").toString()), "")),
            "o");
    assertThat(admission.admit("job-000000000001", missingButUnselected).taskSets()).hasSize(1);
    assertThatThrownBy(() -> admit(tasks(data.resolve("absent").toString()), "o"))
        .isInstanceOfSatisfying(
            InvalidInputException.class,
            e -> {
              assertThat(e.field()).isEqualTo("task_sets[0].tasks[1].source.path");
              assertThat(e.getMessage()).contains("task local: dataset folder not found");
            });
    assertThatThrownBy(() -> admit(tasks(data.toString()), "o"))
        .isInstanceOfSatisfying(
            InvalidInputException.class,
            e -> assertThat(e.getMessage()).contains("missing corpus.jsonl"));
  }

  @Test
  void errorsNeverShowFileContentsNorTheYamlSourceText() {
    // A dataset path naming a file whose content is secret: refused without reading it.
    refused(
        InvalidInputException.class,
        "task_sets[0].tasks[1].source.path",
        tasks(data.resolve("tiny/corpus.jsonl").toString()),
        "o");
    // A YAML syntax error in a task set: line and column, not the text around it.
    assertThatThrownBy(() -> admit("name: b\ntasks: [" + SECRET + "\n  - : : :\n", "o"))
        .isInstanceOfSatisfying(
            InvalidInputException.class,
            e -> {
              assertThat(e.field()).isEqualTo("task_sets[0].yaml");
              assertThat(e.getMessage()).contains("line ").doesNotContain(SECRET);
            });
    assertThatThrownBy(
            () ->
                admission.admit(
                    "job-000000000001", new JobRequest("name: [" + SECRET + "\n", List.of(), "o")))
        .isInstanceOfSatisfying(
            InvalidInputException.class,
            e -> {
              assertThat(e.field()).isEqualTo("spec_yaml");
              assertThat(e.getMessage()).contains("line ").doesNotContain(SECRET);
            });
  }

  @Test
  void longValuesAreCutInMessages() {
    String huge = "x".repeat(100_000);
    refused(
        InvalidInputException.class,
        "output_dir",
        tasks(data.resolve("tiny").toString()),
        "/" + huge);
    refused(
        PermissionDeniedException.class,
        "output_dir",
        tasks(data.resolve("tiny").toString()),
        "/" + "y".repeat(3000));
    assertThatThrownBy(
            () ->
                admit(
                    tasks(data.resolve("tiny").toString())
                        .replace("name: local", "name: " + huge + "!"),
                    "o"))
        .isInstanceOfSatisfying(
            InvalidInputException.class,
            e -> assertThat(e.getMessage()).hasSizeLessThan(1000).contains("more characters"));
    assertThatThrownBy(
            () ->
                admission.admit(
                    "job-000000000001",
                    new JobRequest(SPEC.replace("[bm25]", "[" + huge + "]"), List.of(), "o")))
        .isInstanceOfSatisfying(
            InvalidInputException.class, e -> assertThat(e.getMessage()).hasSizeLessThan(1000));
  }

  @Test
  void theTaskSetsSentMustBeExactlyThoseTheSpecNames() {
    String hub =
        "name: b\ntasks:\n  - {name: t, language: en, source: {hub: o/hub, revision: main}}\n";
    assertThatThrownBy(
            () -> admission.admit("job-000000000001", new JobRequest(SPEC, List.of(), "o")))
        .isInstanceOfSatisfying(
            InvalidInputException.class,
            e -> assertThat(e.field()).isEqualTo("spec_yaml.task_sets[0]"));
    assertThatThrownBy(
            () ->
                admission.admit(
                    "job-000000000001",
                    new JobRequest(
                        SPEC,
                        List.of(
                            new JobRequest.TaskSetDocument("tasks.yaml", hub, ""),
                            new JobRequest.TaskSetDocument("other.yaml", hub, "")),
                        "o")))
        .isInstanceOfSatisfying(
            InvalidInputException.class, e -> assertThat(e.field()).isEqualTo("task_sets[1].name"));
    assertThatThrownBy(
            () ->
                admission.admit(
                    "job-000000000001",
                    new JobRequest(
                        SPEC,
                        List.of(new JobRequest.TaskSetDocument("tasks.yaml", hub, "rel")),
                        "o")))
        .isInstanceOfSatisfying(
            InvalidInputException.class,
            e -> assertThat(e.field()).isEqualTo("task_sets[0].base_dir"));
    assertThatThrownBy(
            () ->
                admission.admit(
                    "job-000000000001",
                    new JobRequest(
                        SPEC.replace("retrievers", "tasks: [nope]\nretrievers"),
                        List.of(new JobRequest.TaskSetDocument("tasks.yaml", hub, "")),
                        "o")))
        .isInstanceOfSatisfying(
            InvalidInputException.class, e -> assertThat(e.field()).isEqualTo("spec_yaml.tasks"));
    // a client's run files are never read by the service
    assertThatThrownBy(
            () ->
                admission.admit(
                    "job-000000000001",
                    new JobRequest(
                        SPEC + "\nruns: [{name: mine, file: /etc/passwd, task: t}]\n",
                        List.of(new JobRequest.TaskSetDocument("tasks.yaml", hub, "")),
                        "o")))
        .isInstanceOfSatisfying(
            InvalidInputException.class, e -> assertThat(e.field()).isEqualTo("spec_yaml.runs"));
  }
}
