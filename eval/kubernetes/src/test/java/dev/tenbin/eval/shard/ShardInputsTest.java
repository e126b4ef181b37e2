package dev.tenbin.eval.shard;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenbin.eval.job.AdmittedJob;
import dev.tenbin.eval.job.JobRequest;
import dev.tenbin.eval.job.JobSpec;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The task sets a shard's pod reads: relative local paths written out against the client's base.
 */
class ShardInputsTest {
  @TempDir Path tmp;

  @Test
  void theShardsAndReplicasTheAdmissionChoseAreWrittenIntoThePodsSpec() throws Exception {
    String yaml = "name: j\ntask_sets: [tasks.yaml]\nretrievers: [bm25]\n";
    JobRequest request =
        new JobRequest(
            yaml,
            List.of(
                new JobRequest.TaskSetDocument(
                    "tasks.yaml",
                    "name: b\ntasks:\n  - {name: t, source: {hub: o/h, revision: main}}\n",
                    "")),
            "out");
    JobSpec spec = JobSpec.parse(yaml, Path.of("job-1")).withDefaultShards(3);
    Path written = ShardInputs.write(new AdmittedJob("job-1", spec, List.of(), tmp, request), null);
    assertThat(JobSpec.read(written).shards()).isEqualTo(3);
    JobSpec unsharded = JobSpec.parse(yaml, Path.of("job-2"));
    Path plain =
        ShardInputs.write(new AdmittedJob("job-2", unsharded, List.of(), tmp, request), null);
    assertThat(Files.readString(plain)).doesNotContain("shards").doesNotContain("replicas");
    JobSpec replicated = JobSpec.parse(yaml, Path.of("job-3")).withDefaultReplicas(2);
    Path copies =
        ShardInputs.write(new AdmittedJob("job-3", replicated, List.of(), tmp, request), null);
    assertThat(JobSpec.read(copies).replicas()).isEqualTo(2);
  }

  @Test
  void relativeDatasetPathsBecomeAbsoluteAndAbsoluteOnesAndHubSourcesStay() throws Exception {
    String yaml =
        """
        name: b
        tasks:
          - {name: a, source: {path: data/a}, queries: q/a.jsonl}
          - {name: b, source: {path: /abs/b}}
          - {name: c, source: {hub: org/c, revision: abc}}
        tasks_from: {path: ../more}
        """;
    var tree = ShardInputs.absolute(yaml, Path.of("/base/sets"));
    assertThat(tree.at("/tasks/0/source/path").asText()).isEqualTo("/base/sets/data/a");
    assertThat(tree.at("/tasks/0/queries").asText()).isEqualTo("/base/sets/q/a.jsonl");
    assertThat(tree.at("/tasks/1/source/path").asText()).isEqualTo("/abs/b");
    assertThat(tree.at("/tasks/2/source/hub").asText()).isEqualTo("org/c");
    assertThat(tree.at("/tasks_from/path").asText()).isEqualTo("/base/more");
    assertThat(
            ShardInputs.absolute("name: x\ntasks_from: d\n", Path.of("/r"))
                .at("/tasks_from")
                .asText())
        .isEqualTo("/r/d");
  }
}
