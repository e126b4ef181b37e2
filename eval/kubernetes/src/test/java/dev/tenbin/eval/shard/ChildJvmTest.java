package dev.tenbin.eval.shard;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/** How a shard's JVM is started: this JVM's flags that matter, the class path from a file. */
class ChildJvmTest {
  @Test
  void moduleStackAndMemoryFlagsPassButAgentsAndDebuggersDoNot() {
    assertThat(ChildJvm.passedOn("--add-modules=jdk.incubator.vector")).isTrue();
    assertThat(ChildJvm.passedOn("--enable-native-access=ALL-UNNAMED")).isTrue();
    assertThat(ChildJvm.passedOn("-Xss4m")).isTrue();
    assertThat(ChildJvm.passedOn("-Xmx2g")).isTrue();
    assertThat(ChildJvm.passedOn("-javaagent:/x/jacoco.jar")).isFalse();
    assertThat(ChildJvm.passedOn("-agentlib:jdwp=transport=dt_socket,address=5005")).isFalse();
    assertThat(ChildJvm.passedOn("-Dtenbin.stderr.fd=3")).isFalse();
  }

  @Test
  void theClassPathGoesInAnArgumentFileQuotedForTheJavaLauncher() throws Exception {
    List<String> command = ChildJvm.command("dev.tenbin.Main");
    assertThat(command.getFirst()).endsWith("/bin/java");
    assertThat(command.getLast()).isEqualTo("dev.tenbin.Main");
    String argFile = command.get(command.size() - 2);
    assertThat(argFile).startsWith("@");
    assertThat(Files.readString(Path.of(argFile.substring(1))))
        .isEqualTo("-cp\n\"" + System.getProperty("java.class.path") + "\"\n");
    Path odd = ChildJvm.classPathFile("/a b/x.jar:C:\\lib\\\"q\".jar");
    assertThat(Files.readString(odd)).isEqualTo("-cp\n\"/a b/x.jar:C:\\\\lib\\\\\\\"q\\\".jar\"\n");
  }
}
