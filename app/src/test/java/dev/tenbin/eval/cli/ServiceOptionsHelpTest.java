package dev.tenbin.eval.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Every command that reaches the services lists their options in one section of its help. */
class ServiceOptionsHelpTest {
  private static final String HEADING = "Services (embedded unless an endpoint is given)";

  @ParameterizedTest
  @ValueSource(strings = {"models", "eval", "run", "parity"})
  void theServiceOptionsFollowTheirHeading(String command) {
    String help = CliRunner.run(command, "--help").out();
    int heading = help.indexOf(HEADING);
    assertThat(heading).as(help).isPositive();
    // The option's own line (not the synopsis) is in the section.
    Matcher option = Pattern.compile("(?m)^ +--encoder-endpoint=").matcher(help);
    assertThat(option.find()).as(help).isTrue();
    assertThat(option.start()).as(help).isGreaterThan(heading);
  }
}
