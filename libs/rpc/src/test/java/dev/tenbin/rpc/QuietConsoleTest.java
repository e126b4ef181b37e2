package dev.tenbin.rpc;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class QuietConsoleTest {
  @TempDir Path tmp;

  @Test
  void theLauncherStderrIsUsedOnlyWhenItIsStillTheFileTheLauncherNamed() throws Exception {
    Path stderr = Files.writeString(tmp.resolve("stderr"), "");
    Path other = Files.writeString(tmp.resolve("lib-modules"), "binary image");
    Map<String, Object> attributes = Files.readAttributes(stderr, "unix:dev,ino");
    String identity = attributes.get("dev") + ":" + attributes.get("ino");
    Path link = Files.createSymbolicLink(tmp.resolve("fd-3"), stderr);

    assertThat(QuietConsole.isFile(stderr.toString(), identity)).isTrue();
    assertThat(QuietConsole.isFile(link.toString(), identity))
        .as("followed through /dev/fd links")
        .isTrue();
    assertThat(QuietConsole.isFile(other.toString(), identity))
        .as("another file at that descriptor")
        .isFalse();
    assertThat(QuietConsole.isFile(stderr.toString(), null))
        .as("flags copied without an identity")
        .isFalse();
    assertThat(QuietConsole.isFile(stderr.toString(), "/dev/fd/3")).isFalse();
    assertThat(QuietConsole.isFile(tmp.resolve("absent").toString(), identity)).isFalse();
  }
}
