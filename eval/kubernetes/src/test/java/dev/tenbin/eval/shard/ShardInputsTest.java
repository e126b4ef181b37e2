package dev.tenbin.eval.shard;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * The task sets a shard's pod reads: relative local paths written out against the client's base.
 */
class ShardInputsTest {
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
