package dev.tenbin.bench;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** {@code bench bm25} checks its search options before reading the dataset. */
class BenchBm25OptionsTest {
  @Test
  void aTopKBelowOneIsRefusedNamingTheFlag() {
    CliRunner result =
        CliRunner.run("bench", "bm25", "--dataset", "no-such-folder", "--top-k", "0");
    assertThat(result.exitCode()).isEqualTo(2);
    assertThat(result.err()).contains("--top-k must be at least 1").doesNotContain("Exception");
  }

  @Test
  void threadsBelowOneAreRefusedNamingTheFlag() {
    CliRunner result =
        CliRunner.run("bench", "bm25", "--dataset", "no-such-folder", "--threads", "0");
    assertThat(result.exitCode()).isEqualTo(2);
    assertThat(result.err()).contains("--threads must be at least 1");
  }

  @Test
  void theHelpListsTopKAndThreads() {
    CliRunner result = CliRunner.run("bench", "bm25", "--help");
    assertThat(result.exitCode()).isZero();
    assertThat(result.out()).contains("--top-k", "--threads");
  }
}
