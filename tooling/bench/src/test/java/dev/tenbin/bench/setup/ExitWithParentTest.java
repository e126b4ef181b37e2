package dev.tenbin.bench.setup;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A service started by a bench stops, in order, when the bench's process ends without stopping it:
 * its standard input (a pipe from the bench) ends, and {@link ExitWithParent} stops it as SIGTERM
 * would.
 */
class ExitWithParentTest {
  @TempDir Path folder;

  private Path awaitReady() throws InterruptedException {
    Path ready = folder.resolve("ready");
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (!Files.exists(ready) && System.nanoTime() < deadline) {
      Thread.sleep(20);
    }
    assertThat(ready).as("the service started").exists();
    return ready;
  }

  @Test
  void theServiceStopsInOrderWhenItsStandardInputEnds() throws Exception {
    Process service =
        new ProcessBuilder(
                ServiceProcess.command(SleepingService.class.getName(), List.of(folder.toString())))
            .redirectOutput(ProcessBuilder.Redirect.DISCARD)
            .redirectError(folder.resolve("service.err").toFile())
            .start();
    try {
      awaitReady();
      assertThat(service.waitFor(500, TimeUnit.MILLISECONDS)).as("still running").isFalse();

      service.getOutputStream().close();

      assertThat(service.waitFor(30, TimeUnit.SECONDS)).as("stopped").isTrue();
      assertThat(service.exitValue()).isEqualTo(ExitWithParent.STOPPED);
      assertThat(folder.resolve("stopped")).hasContent("stopped in order");
      assertThat(folder.resolve("service.err"))
          .content()
          .contains("the process that started this one has ended: stopping");
    } finally {
      service.destroyForcibly();
    }
  }

  @Test
  void theServiceStopsInOrderWhenTheProcessThatStartedItIsKilled() throws Exception {
    Process parent =
        new ProcessBuilder(
                ServiceProcess.command(ParentOfService.class.getName(), List.of(folder.toString())))
            .redirectOutput(ProcessBuilder.Redirect.DISCARD)
            .redirectError(ProcessBuilder.Redirect.DISCARD)
            .start();
    Optional<ProcessHandle> service = Optional.empty();
    try {
      long pid = Long.parseLong(Files.readString(awaitReady()).strip());
      service = ProcessHandle.of(pid);
      assertThat(service).as("the service's process").isPresent();
      assertThat(service.get().parent().map(ProcessHandle::pid)).contains(parent.pid());

      // SIGKILL: the parent runs no shutdown hook and cannot stop its child itself.
      parent.destroyForcibly();
      assertThat(parent.waitFor(30, TimeUnit.SECONDS)).isTrue();

      service.get().onExit().get(30, TimeUnit.SECONDS);
      assertThat(service.get().isAlive()).isFalse();
      assertThat(folder.resolve("stopped")).hasContent("stopped in order");
    } finally {
      parent.destroyForcibly();
      service.ifPresent(ProcessHandle::destroyForcibly);
    }
  }
}
