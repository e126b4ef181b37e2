package dev.tenbin.rpc;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class BearerTokensTest {
  @TempDir Path tmp;

  @Test
  void acceptsExactlyTheTokensOfTheFile() throws Exception {
    Path file =
        Files.writeString(
            tmp.resolve("t"), "# ops\r\nfirst-token-0123456789\r\n\n   second-token-0123456789\n");
    BearerTokens tokens = BearerTokens.load(file, Duration.ZERO);
    assertThat(tokens.size()).isEqualTo(2);
    assertThat(tokens.accepts("first-token-0123456789")).isTrue();
    assertThat(tokens.accepts("second-token-0123456789")).isTrue();
    assertThat(tokens.accepts("first-token-012345678")).isFalse();
    assertThat(tokens.accepts("# ops")).isFalse();
    assertThat(tokens.accepts("")).isFalse();
    assertThat(tokens.accepts(null)).isFalse();
  }

  @Test
  void anUnreadableFileKeepsThePreviousTokensAndAnEmptyOneRefusesEveryone() throws Exception {
    Path file = Files.writeString(tmp.resolve("t"), "first-token-0123456789\n");
    BearerTokens tokens = BearerTokens.load(file, Duration.ZERO);
    Files.delete(file);
    assertThat(tokens.accepts("first-token-0123456789")).isTrue();
    Files.writeString(file, "# all revoked\n");
    assertThat(tokens.accepts("first-token-0123456789")).isFalse();
    assertThat(tokens.size()).isZero();
  }
}
