package dev.tenbin.eval.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.UncheckedIOException;
import org.junit.jupiter.api.Test;

/** How the CLI words a failure on stderr. */
class FailureDescriptionTest {
  @Test
  void anIoFailureWithoutAMessageIsNamedNotNull() {
    assertThat(
            TenbinCli.describe(
                new UncheckedIOException("cannot reach X", new java.net.ConnectException())))
        .isEqualTo("cannot reach X (ConnectException)");
  }

  @Test
  void aReasonAlreadyInTheMessageIsNotRepeated() {
    assertThat(
            TenbinCli.describe(
                new UncheckedIOException(
                    "cannot reach X: Connection reset",
                    new java.io.IOException("Connection reset"))))
        .isEqualTo("cannot reach X: Connection reset");
  }
}
