package dev.tenbin.eval.shard;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * The local executor's process handling, with shell commands for shard processes: output streamed
 * with the shard's prefix, a failed shard started once more, a refused one (exit 2) not, and every
 * child ended on cancellation.
 */
class LocalExecutorTest {
  private final StringWriter output = new StringWriter();
  private final Map<Integer, Integer> starts = new ConcurrentHashMap<>();

  private List<String> sh(String script) {
    return List.of("sh", "-c", script);
  }

  @Test
  void aFailedShardIsStartedOnceMoreAndItsOutputIsPrefixed() {
    LocalExecutor executor =
        new LocalExecutor(
            shard -> {
              int attempt = starts.merge(shard.index(), 1, Integer::sum);
              return shard.index() == 1 && attempt == 1
                  ? sh("echo first try of 1; exit 1")
                  : sh("echo shard " + shard.index() + " done");
            },
            new PrintWriter(output, true),
            1);

    List<LocalExecutor.ShardRun> runs = executor.run(3, dev.tenbin.core.Cancellation.NEVER);

    assertThat(runs)
        .extracting(LocalExecutor.ShardRun::attempts, LocalExecutor.ShardRun::exitCode)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple(1, 0),
            org.assertj.core.groups.Tuple.tuple(2, 0),
            org.assertj.core.groups.Tuple.tuple(1, 0));
    assertThat(output.toString())
        .contains("[shard 1/3] first try of 1")
        .contains("[shard 1/3] exited 1; starting it again (attempt 2)")
        .contains("[shard 1/3] shard 1 done")
        .contains("[shard 2/3] shard 2 done");
  }

  @Test
  void aShardThatFailsTwiceFailsAndARefusedOneIsNotRetried() {
    LocalExecutor executor =
        new LocalExecutor(
            shard -> {
              starts.merge(shard.index(), 1, Integer::sum);
              return sh(shard.index() == 0 ? "exit 3" : "exit 2");
            },
            new PrintWriter(output, true),
            1);

    List<LocalExecutor.ShardRun> runs = executor.run(2, dev.tenbin.core.Cancellation.NEVER);

    assertThat(runs.get(0).succeeded()).isFalse();
    assertThat(runs.get(0).attempts()).isEqualTo(2);
    assertThat(runs.get(1).exitCode()).isEqualTo(LocalExecutor.EXIT_USAGE);
    assertThat(runs.get(1).attempts()).isEqualTo(1);
  }

  @Test
  void cancellingEndsEveryChild() {
    AtomicBoolean cancelled = new AtomicBoolean();
    LocalExecutor executor =
        new LocalExecutor(shard -> sh("echo up; sleep 60"), new PrintWriter(output, true), 1);
    Thread canceller =
        new Thread(
            () -> {
              while (output.toString().split("up").length < 3) {
                Thread.onSpinWait();
              }
              cancelled.set(true);
            });
    canceller.start();
    long start = System.nanoTime();

    List<LocalExecutor.ShardRun> runs = executor.run(2, cancelled::get);

    assertThat((System.nanoTime() - start) / 1_000_000_000).isLessThan(30);
    assertThat(runs).allSatisfy(run -> assertThat(run.succeeded()).isFalse());
    assertThat(runs).allSatisfy(run -> assertThat(run.attempts()).isEqualTo(1));
  }
}
