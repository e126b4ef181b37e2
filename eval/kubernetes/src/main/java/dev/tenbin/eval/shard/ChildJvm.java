package dev.tenbin.eval.shard;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The command line that starts another JVM like this one: this JVM's {@code java} binary ({@code
 * java.home}), its module and memory flags, its class path, then a main class. Debug and agent
 * flags are left out (a second debugger on one port, or a profiler per shard, is never meant).
 *
 * <p>The class path goes in an argument file ({@code @file}), not on the command line: with a class
 * path of a few hundred jars on the command line, the Hugging Face tokenizer's native library
 * crashed the child (SIGSEGV, exit 139, no hs_err file) while loading on the main thread at {@code
 * -Xss4m}; the same class path from an argument file runs.
 */
public final class ChildJvm {
  private ChildJvm() {}

  /** {@code java [flags] @ARGFILE mainClass}, the argument file holding {@code -cp CLASSPATH}. */
  public static List<String> command(String mainClass) {
    List<String> line = new ArrayList<>();
    line.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    for (String flag : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
      if (passedOn(flag)) {
        line.add(flag);
      }
    }
    line.add("@" + classPathFile(System.getProperty("java.class.path")));
    line.add(mainClass);
    return line;
  }

  /** A temporary argument file {@code -cp "CLASSPATH"} (deleted when this JVM exits). */
  static Path classPathFile(String classPath) {
    try {
      Path file = Files.createTempFile("tenbin-classpath-", ".args");
      file.toFile().deleteOnExit();
      String quoted = classPath.replace("\\", "\\\\").replace("\"", "\\\"");
      Files.writeString(file, "-cp\n\"" + quoted + "\"\n", StandardCharsets.UTF_8);
      return file;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write the class path of a child JVM", e);
    }
  }

  /** Module, access and memory flags pass; agents, debuggers and recordings do not. */
  static boolean passedOn(String flag) {
    return flag.startsWith("--add-modules")
        || flag.startsWith("--enable-native-access")
        || flag.startsWith("--add-opens")
        || flag.startsWith("--add-exports")
        || flag.startsWith("-Xss")
        || flag.startsWith("-Xmx")
        || flag.startsWith("-Xms")
        || flag.startsWith("-XX:MaxRAMPercentage")
        || flag.startsWith("-XX:+Use")
        || flag.startsWith("-Djava.io.tmpdir")
        || flag.startsWith("-Dorg.slf4j");
  }
}
