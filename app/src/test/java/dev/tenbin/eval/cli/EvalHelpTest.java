package dev.tenbin.eval.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenbin.eval.family.Families;
import dev.tenbin.eval.plan.RetrievalFamily;
import org.junit.jupiter.api.Test;

class EvalHelpTest {
  @Test
  void evalHelpListsEveryRegisteredRetrieverAndReranker() {
    CliRunner result = CliRunner.run("eval", "--help");
    assertThat(result.exitCode()).as(result.err()).isZero();
    // Help wraps lines anywhere: compare without whitespace.
    String help = result.out().replaceAll("\\s+", "");
    for (RetrievalFamily family : Families.retrieval()) {
      assertThat(help)
          .contains((family.usage() + " (" + family.description() + ")").replaceAll("\\s+", ""));
    }
    assertThat(help)
        .contains("Defaultbm25.")
        .contains("across-encoderidordense:MODEL,sparse:MODEL,multivector:MODEL");
  }

  @Test
  void evalHelpPutsTheServiceTlsAndHardwareOptionsInSectionsAfterTheEverydayOnes() {
    String help = CliRunner.run("eval", "--help").out();
    int services =
        help.indexOf("Services (embedded unless an endpoint is given), models and caches:");
    int remote = help.indexOf("Reaching remote services (TLS, tokens):");
    int hardware = help.indexOf("What the embedded encoder and reranker run on:");
    assertThat(services).as(help).isPositive();
    assertThat(remote).isPositive();
    assertThat(hardware).isPositive();
    String everyday = help.substring(0, Math.min(services, Math.min(remote, hardware)));
    assertThat(everyday).contains("--dataset=", "--retriever=", "--top-k=");
    assertThat(everyday)
        .doesNotContain("--service-tls-ca=", "--encoder-endpoint=", "--execution-provider=");
    assertThat(help.substring(remote)).contains("--service-tls-ca=");
    assertThat(help.substring(services)).contains("--encoder-endpoint=");
    assertThat(help.substring(hardware)).contains("--execution-provider=");
  }
}
