package dev.tenbin.encoder;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenbin.encoder.testing.EncodeUntilStopped;
import dev.tenbin.encoder.testing.PrintOrtHookRemoved;
import dev.tenbin.testing.models.TinyModels;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The JVM's own shutdown while passes run, in child JVMs started with this JVM's flags: SIGTERM and
 * {@code System.exit} mid-encode end the process without a crash (no hs_err file, no exit code
 * 134/139, no "A fatal error" on stderr) and with a quiet stderr. Each case repeats {@code
 * -Dtenbin.stress=N} times (default 1).
 */
class ChildJvmShutdownIT {
  private static final int ROUNDS = Integer.getInteger("tenbin.stress", 1);
  private static final String MODEL = "all-minilm-l6-v2";

  @TempDir Path tmp;

  @BeforeEach
  void models() throws Exception {
    TinyModels.dense(tmp.resolve("models"), "tiny-dense", false);
  }

  /** A started child and where its crash log would go. */
  private record Child(Process process, Path errors, Path crashLog) {}

  private Child start(String round, List<String> jvmFlags, String... mode) throws IOException {
    Path dir = Files.createDirectories(tmp.resolve("child-" + round));
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    List<String> command = new ArrayList<>();
    command.add(java);
    command.addAll(jvmFlags);
    command.add("-XX:ErrorFile=" + dir.resolve("hs_err_pid%p.log"));
    command.addAll(
        List.of("-cp", System.getProperty("java.class.path"), EncodeUntilStopped.class.getName()));
    command.addAll(
        List.of(MODEL, tmp.resolve("models").toString(), tmp.resolve("cache").toString()));
    command.addAll(List.of(mode));
    Path errors = dir.resolve("stderr.txt");
    Process process =
        new ProcessBuilder(command).directory(dir.toFile()).redirectError(errors.toFile()).start();
    return new Child(process, errors, dir);
  }

  /** This JVM's flags, minus debugger/agent options. */
  private static List<String> sameFlags() {
    return ManagementFactory.getRuntimeMXBean().getInputArguments().stream()
        .filter(
            flag ->
                !flag.startsWith("-agentlib")
                    && !flag.startsWith("-javaagent")
                    && !flag.startsWith("-XX:ErrorFile"))
        .toList();
  }

  private static void awaitEncoding(Process process) throws IOException {
    BufferedReader out =
        new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
    String line;
    while ((line = out.readLine()) != null) {
      if (line.equals("ENCODING")) {
        return;
      }
    }
    throw new AssertionError("the child ended before encoding, exit " + process.exitValue());
  }

  private static void assertEndedWithoutACrash(Child child, int expectedExit) throws Exception {
    assertThat(child.process().waitFor(120, TimeUnit.SECONDS)).as("the child ends").isTrue();
    String stderr = Files.readString(child.errors());
    try (Stream<Path> files = Files.list(child.crashLog())) {
      assertThat(files.map(Path::getFileName).map(Path::toString))
          .noneMatch(name -> name.startsWith("hs_err"));
    }
    assertThat(stderr).doesNotContain("A fatal error").doesNotContain("SIGSEGV");
    assertThat(child.process().exitValue()).isNotIn(134, 139).isEqualTo(expectedExit);
    // Quiet stderr: no CUDA probe on a CPU machine, no stack traces.
    assertThat(stderr).doesNotContain("CUDA").doesNotContain("Exception");
  }

  @Test
  void sigtermOfAChildJvmMidEncodeEndsItWithoutACrash() throws Exception {
    for (int round = 0; round < ROUNDS; round++) {
      Child child = start("term-" + round, sameFlags(), "wait");
      awaitEncoding(child.process());
      Thread.sleep(round * 37L % 300);
      child.process().destroy(); // SIGTERM
      assertEndedWithoutACrash(child, 143);
    }
  }

  @Test
  void systemExitOfAChildJvmMidEncodeEndsItWithoutACrash() throws Exception {
    for (int round = 0; round < ROUNDS; round++) {
      Child child = start("exit-" + round, sameFlags(), "exit", Long.toString(round * 53L % 400));
      awaitEncoding(child.process());
      assertEndedWithoutACrash(child, 0);
    }
  }

  private static List<String> withoutOpens() {
    return sameFlags().stream().filter(flag -> !flag.startsWith("--add-opens")).toList();
  }

  @Test
  void systemExitMidEncodeWithoutTheAddOpensFlagEndsWithoutACrashToo() throws Exception {
    // Library use: ONNX Runtime's hook stays, the environment's extra reference keeps it alive.
    for (int round = 0; round < ROUNDS; round++) {
      Child child =
          start("exit-no-opens-" + round, withoutOpens(), "exit", Long.toString(round * 71L % 400));
      awaitEncoding(child.process());
      assertEndedWithoutACrash(child, 0);
    }
  }

  @Test
  void withoutTheAddOpensFlagOnnxRuntimesHookStaysAndNothingIsPrinted() throws Exception {
    List<String> withoutOpens = withoutOpens();
    for (boolean opened : List.of(true, false)) {
      List<String> command = new ArrayList<>();
      command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
      command.addAll(opened ? sameFlags() : withoutOpens);
      command.addAll(
          List.of(
              "-cp", System.getProperty("java.class.path"), PrintOrtHookRemoved.class.getName()));
      Path errors = tmp.resolve("hook-" + opened + ".txt");
      Process process = new ProcessBuilder(command).redirectError(errors.toFile()).start();
      String out =
          new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
      assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();
      assertThat(process.exitValue()).isZero();
      assertThat(out).isEqualTo(Boolean.toString(opened));
      assertThat(
              Files.readString(errors)
                  .lines()
                  .filter(line -> !line.startsWith("WARNING: Using incubator modules")))
          .as("nothing on stderr")
          .isEmpty();
    }
  }
}
