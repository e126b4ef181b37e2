package dev.tenbin.eval.cli;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** {@code tenbin serve SERVICE [service options]}: the service's own options reach it. */
class ServeCommandTest {
  @Test
  void theServicesOwnOptionsArePassedThrough() {
    CliRunner help = CliRunner.run("serve", "eval", "--help");
    assertThat(help.exitCode()).as(help.err()).isZero();
    assertThat(help.out()).contains("--port").contains("--encoder-endpoint").contains("--cache-dir");
  }

  @Test
  void aBadServiceOptionIsAClearError() {
    CliRunner result = CliRunner.run("serve", "eval", "--port", "not-a-number");
    assertThat(result.exitCode()).isEqualTo(2);
    assertThat(result.err()).contains("--port").doesNotContain("Exception");
  }

  @Test
  void anUnknownServiceIsAClearError() {
    CliRunner result = CliRunner.run("serve", "search", "--port", "1");
    assertThat(result.exitCode()).isEqualTo(2);
    assertThat(result.err()).contains("unknown service 'search'");
  }
}
