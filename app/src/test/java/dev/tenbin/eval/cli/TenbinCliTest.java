package dev.tenbin.eval.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenbin.eval.provenance.TenbinVersion;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Model.PositionalParamSpec;

/**
 * The {@code tenbin} command tree: job control under {@code tenbin job}, old names as warned
 * aliases, one version.
 */
class TenbinCliTest {
  private static final String DEAD_ENDPOINT = "127.0.0.1:1";

  @ParameterizedTest
  @ValueSource(strings = {"submit", "list", "status", "watch", "cancel", "results"})
  void everyJobCommandIsReachableUnderJob(String verb) {
    CliRunner help = CliRunner.run("job", verb, "--help");
    assertThat(help.exitCode()).isZero();
    assertThat(help.out()).contains("Usage: tenbin job " + verb);
    assertThat(help.err()).doesNotContain("deprecated");
  }

  @Test
  void theTopLevelHelpListsJobButNotTheOldFlatNames() {
    String usage = TenbinCli.commandLine().getUsageMessage();
    assertThat(usage).contains("  job ");
    for (String verb : List.of("submit", "status", "watch", "cancel", "results")) {
      assertThat(usage).as(verb).doesNotContainPattern("(?m)^\\s+" + verb + "\\s");
    }
    assertThat(CliRunner.run("job").err())
        .contains("submit", "list", "status", "watch", "cancel", "results");
  }

  @ParameterizedTest
  @ValueSource(strings = {"status", "watch", "cancel", "results"})
  void anOldFlatNameStillRunsTheJobCommandAndWarnsOnceOnStderr(String verb) {
    List<String> args =
        new ArrayList<>(List.of(verb, "job-000000000000", "--endpoint", DEAD_ENDPOINT));
    if (verb.equals("watch")) {
      args.addAll(List.of("--reconnect-seconds", "0"));
    }
    CliRunner old = CliRunner.run(args.toArray(String[]::new));
    args.addFirst("job");
    CliRunner current = CliRunner.run(args.toArray(String[]::new));

    String note = "tenbin: 'tenbin " + verb + "' is deprecated; use 'tenbin job " + verb + "'";
    assertThat(old.err().lines().findFirst()).contains(note);
    assertThat(old.err().lines().filter(line -> line.contains("deprecated")).count()).isEqualTo(1);
    assertThat(current.err()).doesNotContain("deprecated");
    assertThat(old.err())
        .as("the alias ran the command: it called the service")
        .contains("service call failed: UNAVAILABLE");
    assertThat(old.exitCode())
        .as("the alias runs the same command")
        .isEqualTo(current.exitCode())
        .isNotZero();
  }

  @Test
  void theOldSubmitNameStillSubmitsAndWarns() {
    CliRunner old =
        CliRunner.run("submit", "missing-spec.yaml", "--out", "o", "--endpoint", DEAD_ENDPOINT);
    assertThat(old.err())
        .startsWith("tenbin: 'tenbin submit' is deprecated; use 'tenbin job submit'");
    assertThat(old.err()).contains("missing-spec.yaml");
    assertThat(old.exitCode())
        .isEqualTo(CliRunner.run("job", "submit", "missing-spec.yaml", "--out", "o").exitCode());
  }

  @Test
  void versionComesFromTheBuildStampedTenbinVersion() {
    CliRunner version = CliRunner.run("--version");
    assertThat(version.exitCode()).isZero();
    assertThat(TenbinVersion.get()).isNotEqualTo("unknown").matches("\\d+\\.\\d+\\.\\d+.*");
    assertThat(TenbinVersion.commit())
        .as("the source commit read from git at build time")
        .matches("[0-9a-f]{7,}(-dirty)?");
    assertThat(TenbinVersion.imageTag())
        .isEqualTo(TenbinVersion.get().replace("-SNAPSHOT", "") + "-" + TenbinVersion.commit());
    assertThat(version.out().strip()).isEqualTo("tenbin " + TenbinVersion.describe());
  }

  @Test
  void anEndpointFlagRefusesAnAddressWithoutPortNamingTheFlag() {
    CliRunner bad = CliRunner.run("job", "list", "--endpoint", "eval.internal");
    assertThat(bad.exitCode()).isEqualTo(TenbinCli.EXIT_USAGE);
    assertThat(bad.err())
        .contains("--endpoint is missing its port (HOST:PORT), got 'eval.internal'");
    CliRunner ipv6 = CliRunner.run("job", "list", "--endpoint", "[::1]:1");
    assertThat(ipv6.err()).doesNotContain("--endpoint").contains("service call failed");
  }

  @Test
  void theTreeBuiltForANamedSubcommandHoldsOnlyThatSubcommand() {
    assertThat(TenbinCli.commandLine("metrics", "--qrels", "q", "--run", "r").getSubcommands())
        .containsOnlyKeys("metrics");
    assertThat(TenbinCli.commandLine("submit").getSubcommands()).containsOnlyKeys("submit");
  }

  @ParameterizedTest
  @ValueSource(strings = {"--version", "-V"})
  void theVersionAloneIsPrintedByTheTopCommandWithoutBuildingAnySubcommand(String flag) {
    assertThat(TenbinCli.commandLine(flag).getSubcommands()).isEmpty();
    CliRunner version = CliRunner.run(flag);
    assertThat(version.exitCode()).isZero();
    StringWriter wholeTreeOut = new StringWriter();
    CommandLine wholeTree = TenbinCli.commandLine();
    wholeTree.setOut(new PrintWriter(wholeTreeOut, true));
    assertThat(wholeTree.execute(flag)).isZero();
    assertThat(version.out()).isEqualTo(wholeTreeOut.toString());
    assertThat(version.out().strip()).isEqualTo("tenbin " + TenbinVersion.describe());
  }

  @ParameterizedTest
  @ValueSource(strings = {"--help", "--version", "metrcs", "-x", "@args.txt"})
  void anythingButASubcommandNameGetsTheWholeTree(String first) {
    assertThat(TenbinCli.commandLine(first, "metrics").getSubcommands().keySet())
        .containsExactlyElementsOf(TenbinCli.commandLine().getSubcommands().keySet());
    assertThat(TenbinCli.commandLine().getSubcommands())
        .hasSize(TenbinCli.SUBCOMMANDS.size() + TenbinCli.DEPRECATED_JOB_ALIASES.size());
  }

  @Test
  void everySubcommandBuiltAloneHasTheHelpAndSettingsItHasInTheWholeTree() {
    Map<String, CommandLine> whole = TenbinCli.commandLine().getSubcommands();
    assertThat(whole).isNotEmpty();
    whole.forEach(
        (name, inWholeTree) -> {
          CommandLine alone = TenbinCli.commandLine(name).getSubcommands().get(name);
          assertThat(describe(alone)).as(name).isEqualTo(describe(inWholeTree));
        });
  }

  @Test
  void aMistypedSubcommandIsRefusedWithSuggestionsFromTheWholeTree() {
    CliRunner mistyped = CliRunner.run("metrcs");
    assertThat(mistyped.exitCode()).isEqualTo(TenbinCli.EXIT_USAGE);
    assertThat(mistyped.err()).contains("metrics");
  }

  /** The usage texts of a command and all its subcommands, and how each one parses. */
  private static String describe(CommandLine command) {
    StringBuilder description =
        new StringBuilder(command.getCommandSpec().qualifiedName())
            .append(" stopAtPositional=")
            .append(command.isStopAtPositional())
            .append(" hidden=")
            .append(command.getCommandSpec().usageMessage().hidden())
            .append('\n')
            .append(command.getUsageMessage());
    command.getSubcommands().values().forEach(sub -> description.append(describe(sub)));
    return description.toString();
  }

  @Test
  void everyPlaceholderInTheHelpIsAnUppercaseWord() {
    List<String> offenders = new ArrayList<>();
    walk(TenbinCli.commandLine(), offenders);
    assertThat(offenders).isEmpty();
  }

  @Test
  void aRefusalTheServiceExplainsReadsAsItsExplanationAndATransportFailureAsAFailedCall() {
    assertThat(
            TenbinCli.describe(
                io.grpc.Status.NOT_FOUND
                    .withDescription("no job 'job-000000000000'")
                    .asRuntimeException()))
        .isEqualTo("no job 'job-000000000000' (NOT_FOUND)");
    assertThat(
            TenbinCli.describe(
                io.grpc.Status.UNAVAILABLE.withDescription("io exception").asRuntimeException()))
        .isEqualTo("service call failed: UNAVAILABLE: io exception");
    assertThat(TenbinCli.describe(io.grpc.Status.INVALID_ARGUMENT.asRuntimeException()))
        .isEqualTo("service call failed: INVALID_ARGUMENT");
  }

  @Test
  void noHelpTextPrintsNullWhereAVariableWasMeant() {
    List<String> offenders = new ArrayList<>();
    // A JSON null quoted in a description ("key": null) is meant.
    collectUsageWith(TenbinCli.commandLine(), "(?<!\": )\\bnull\\b", offenders);
    assertThat(offenders).isEmpty();
    assertThat(CliRunner.run("job", "submit", "--help").out().replaceAll("\\s+", " "))
        .contains("(~ and ${ENV} are not expanded)");
  }

  private static void collectUsageWith(CommandLine command, String regex, List<String> offenders) {
    if (java.util.regex.Pattern.compile(regex).matcher(command.getUsageMessage()).find()) {
      offenders.add(command.getCommandSpec().qualifiedName());
    }
    command.getSubcommands().values().forEach(sub -> collectUsageWith(sub, regex, offenders));
  }

  private static void walk(CommandLine command, List<String> offenders) {
    CommandSpec spec = command.getCommandSpec();
    if (spec.usageMessage().hidden()) {
      return;
    }
    for (OptionSpec option : spec.options()) {
      if (option.arity().max() > 0
          && !option.hidden()
          && !option.paramLabel().matches("[A-Z][A-Z0-9_:.|]*")) {
        offenders.add(
            spec.qualifiedName() + " " + option.longestName() + " " + option.paramLabel());
      }
    }
    for (PositionalParamSpec positional : spec.positionalParameters()) {
      if (!positional.hidden() && !positional.paramLabel().matches("[A-Z][A-Z0-9_:.|]*")) {
        offenders.add(spec.qualifiedName() + " " + positional.paramLabel());
      }
    }
    command.getSubcommands().values().forEach(sub -> walk(sub, offenders));
  }
}
