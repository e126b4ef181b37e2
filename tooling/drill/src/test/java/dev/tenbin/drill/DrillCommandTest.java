package dev.tenbin.drill;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** {@code tenbin drill}: its subcommands and their options, without starting any child process. */
class DrillCommandTest {
  @Test
  void theDrillHelpListsEveryDrill() {
    CliRunner help = CliRunner.run("drill", "--help");
    assertThat(help.exitCode()).isZero();
    assertThat(help.out())
        .contains(
            "sigterm-encode",
            "cancel-encode",
            "long-id-ingest",
            "kill-restart",
            "drain",
            "overload",
            "soak");
  }

  @ParameterizedTest
  @ValueSource(
      strings = {"sigterm-encode", "cancel-encode", "kill-restart", "drain", "overload", "soak"})
  void drillsThatEncodeTakeADenseModelDefaultingToMiniLm(String drill) {
    CliRunner help = CliRunner.run("drill", drill, "--help");
    assertThat(help.out())
        .contains("--model", "all-minilm-l6-v2", "--work-dir", "--seed", "--json");
  }

  @Test
  void theDrainDrillTakesRoundsAndTheSoakCanSendSigtermsBesideItsKills(@TempDir Path work) {
    assertThat(CliRunner.run("drill", "drain", "--help").out()).contains("--rounds", "20");
    assertThat(CliRunner.run("drill", "soak", "--help").out()).contains("--sigterm");
    CliRunner run = CliRunner.run("drill", "drain", "--rounds", "0", "--work-dir", work.toString());
    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err()).contains("--rounds must be at least 1");
    assertThat(work).isEmptyDirectory();
  }

  @Test
  void theLongIdDrillEncodesNothingAndTakesNoModel() {
    CliRunner help = CliRunner.run("drill", "long-id-ingest", "--help");
    assertThat(help.out()).contains("--work-dir").doesNotContain("--model");
  }

  @Test
  void anUnknownServiceToKillIsRefusedNamingTheOptionBeforeAnyWork(@TempDir Path work) {
    CliRunner run =
        CliRunner.run(
            "drill", "kill-restart", "--service", "database", "--work-dir", work.toString());
    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err()).contains("--service must be index, encoder, rerank or eval");
    assertThat(work).isEmptyDirectory();
  }

  @Test
  void outOfRangeCountsAreRefusedNamingTheOptions(@TempDir Path work) {
    CliRunner run =
        CliRunner.run("drill", "sigterm-encode", "--repeat", "0", "--work-dir", work.toString());
    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err()).contains("--repeat must be at least 1");
    assertThat(work).isEmptyDirectory();
  }

  @Test
  void theSoakDefaultsToThirtyMinutesAtTwiceCapacityWithAKillEveryThreeMinutes() {
    CliRunner help = CliRunner.run("drill", "soak", "--help");
    assertThat(help.out())
        .contains("--duration", "30m", "--kill-every", "3m", "--sample-every", "10s")
        .contains("--load-factor", "--warm-up", "--heap");
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "--duration=banana|'banana' is not a duration",
        "--kill-every=0s|--kill-every must be at least 5s",
        "--sample-every=100ms|--sample-every must be at least 500ms",
        "--load-factor=0|--load-factor must be above 0",
        "--warm-up=2h|--warm-up must be at least 0 and shorter than --duration"
      })
  void badSoakSettingsAreRefusedNamingTheOptionBeforeAnyWork(String option, @TempDir Path work) {
    String[] parts = option.split("\\|");
    CliRunner run = CliRunner.run("drill", "soak", parts[0], "--work-dir", work.toString());
    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err()).contains(parts[1]);
    assertThat(work).isEmptyDirectory();
  }
}
