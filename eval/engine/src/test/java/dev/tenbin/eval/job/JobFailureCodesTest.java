package dev.tenbin.eval.job;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenbin.core.InvalidInputException;
import java.io.IOException;
import java.io.UncheckedIOException;
import org.junit.jupiter.api.Test;

/** How a failed work item or job is reported: the status code name and a one-line reason. */
class JobFailureCodesTest {
  @Test
  void aFullDiskMetByAWriteOfTheJobIsResourceExhaustedWithItsCause() {
    UncheckedIOException cell =
        new UncheckedIOException(
            "cannot store cell t/bm25", new IOException("No space left on device"));
    assertThat(JobRunner.codeOf(cell)).isEqualTo("RESOURCE_EXHAUSTED");
    assertThat(JobRunner.describe(cell))
        .isEqualTo("cannot store cell t/bm25: the disk is full (No space left on device)");
  }

  @Test
  void otherFailuresKeepTheirCodes() {
    assertThat(JobRunner.codeOf(new InvalidInputException("x", "bad")))
        .isEqualTo("INVALID_ARGUMENT");
    assertThat(
            JobRunner.codeOf(
                new UncheckedIOException("cannot read", new IOException("Input/output error"))))
        .isEqualTo("INTERNAL");
  }
}
