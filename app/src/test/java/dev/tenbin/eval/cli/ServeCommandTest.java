package dev.tenbin.eval.cli;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** {@code tenbin serve SERVICE [service options]}: the service's own options reach it. */
class ServeCommandTest {
  @Test
  void theServicesOwnOptionsArePassedThrough() {
    CliRunner help = CliRunner.run("serve", "eval", "--help");
    assertThat(help.exitCode()).as(help.err()).isZero();
    assertThat(help.out())
        .contains("--port")
        .contains("--encoder-endpoint")
        .contains("--cache-dir");
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

  @org.junit.jupiter.params.ParameterizedTest
  @org.junit.jupiter.params.provider.CsvSource({
    "index,--max-top-k,0,--max-top-k must be at least 1",
    "encoder,--intra-op-threads,-1,--intra-op-threads must be 0 (one per core) or positive",
    "rerank,--encoder-endpoint,encoder,--encoder-endpoint is missing its port",
    "rerank,--max-pairs-per-request,0,--max-pairs-per-request must be at least 1",
    "eval,--data-root,/no/such/folder/anywhere,--data-root /no/such/folder/anywhere is not a folder",
    "eval,--index-endpoint,[::1],--index-endpoint is missing its port",
  })
  void eachServiceRefusesABadValueAtStartNamingTheFlag(
      String service, String flag, String value, String message) {
    CliRunner result =
        CliRunner.run("serve", service, flag, value, "--port", "0", "--metrics-port", "-1");
    assertThat(result.exitCode()).isEqualTo(2);
    assertThat(result.err())
        .contains("tenbin serve " + service + ": " + message)
        .doesNotContain("Exception");
  }

  @org.junit.jupiter.params.ParameterizedTest
  @org.junit.jupiter.params.provider.ValueSource(strings = {"index", "encoder", "rerank", "eval"})
  void eachServiceHelpUsesTheSharedPlaceholdersAndTheOneVersion(String service) {
    CliRunner help = CliRunner.run("serve", service, "--help");
    assertThat(help.out())
        .contains("--port=N")
        .contains("--tls-cert=FILE")
        .doesNotContainPattern("=<[a-zA-Z]+>");
    CliRunner version = CliRunner.run("serve", service, "--version");
    assertThat(version.out().strip())
        .isEqualTo("tenbin " + dev.tenbin.eval.provenance.TenbinVersion.describe());
  }
}
