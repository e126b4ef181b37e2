package dev.tenbin.eval.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Model.OptionSpec;

/**
 * {@code tenbin run}: the Kubernetes executor's options in a section of their own after the
 * everyday ones, with the same defaults as before, and never passed on to a shard's process.
 */
class RunHelpTest {
  private static final String HEADING = "With --executor kubernetes (one Indexed Job;";

  @Test
  void theKubernetesOptionsFormOneSectionAfterTheEverydayOptions() {
    String help = CliRunner.run("run", "--help").out();
    int heading = help.indexOf(HEADING);
    assertThat(heading).as(help).isPositive();
    // The option list, after the synopsis and the description.
    java.util.regex.Matcher firstOption = java.util.regex.Pattern.compile("(?m)^ +-").matcher(help);
    assertThat(firstOption.find()).isTrue();
    String everyday = help.substring(firstOption.start(), heading);
    String kubernetes = help.substring(heading);
    List<String> names = kubernetesOptionNames();
    assertThat(names).hasSize(14).contains("--namespace", "--pod-hub-secret", "--poll-seconds");
    for (String name : names) {
      assertThat(everyday).as(name).doesNotContain(name + "=");
      assertThat(kubernetes).as(name).contains(name + "=");
    }
    assertThat(everyday).contains("--executor=", "--out=", "--parallelism=");
    assertThat(kubernetes).doesNotContain("--parallelism=", "--out=");
  }

  @Test
  void withoutKubernetesOptionsTheGroupKeepsItsDefaults() {
    RunCommand run = parse("run", "spec.yaml", "--out", "o");
    assertThat(run.kubernetes.podResultsDir).isEqualTo("/results");
    assertThat(run.kubernetes.pollSeconds).isEqualTo(5.0);
    assertThat(run.kubernetes.ttlSeconds).isEqualTo(86400);
    assertThat(run.kubernetes.namespace)
        .isEqualTo(System.getenv().getOrDefault("TENBIN_NAMESPACE", "default"));

    RunCommand given = parse("run", "spec.yaml", "--out", "o", "--namespace", "ns");
    assertThat(given.kubernetes.namespace).isEqualTo("ns");
    assertThat(given.kubernetes.podResultsDir).isEqualTo("/results");
  }

  @Test
  void theKubernetesOptionsAreNotPassedToAShardsProcess() {
    RunCommand run =
        parse(
            "run",
            "spec.yaml",
            "--out",
            "o",
            "--executor",
            "local",
            "--namespace",
            "ns",
            "--pod-hub-secret",
            "hub",
            "--cache-dir",
            "c");
    assertThat(run.passThrough()).containsExactly("--cache-dir", "c");
  }

  private static RunCommand parse(String... args) {
    CommandLine cli = TenbinCli.commandLine(args);
    CommandLine.ParseResult parsed = cli.parseArgs(args);
    return (RunCommand) parsed.subcommand().commandSpec().userObject();
  }

  private static List<String> kubernetesOptionNames() {
    CommandLine run = TenbinCli.commandLine("run").getSubcommands().get("run");
    return run.getCommandSpec().options().stream()
        .filter(
            option ->
                option.group() != null
                    && option.group().typeInfo().getType() == KubernetesOptions.class)
        .map(OptionSpec::longestName)
        .toList();
  }
}
