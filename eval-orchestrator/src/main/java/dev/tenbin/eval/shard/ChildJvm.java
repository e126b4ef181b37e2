package dev.tenbin.eval.shard;

import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The command line that starts another JVM like this one: this JVM's {@code java} binary ({@code
 * java.home}), its module and memory flags, its class path, then a main class. Debug and agent
 * flags are left out (a second debugger on one port, or a profiler per shard, is never meant).
 */
public final class ChildJvm {
  private ChildJvm() {}

  /** {@code java [flags] -cp CLASSPATH mainClass}. */
  public static List<String> command(String mainClass) {
    List<String> line = new ArrayList<>();
    line.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    for (String flag : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
      if (passedOn(flag)) {
        line.add(flag);
      }
    }
    line.add("-cp");
    line.add(System.getProperty("java.class.path"));
    line.add(mainClass);
    return line;
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
