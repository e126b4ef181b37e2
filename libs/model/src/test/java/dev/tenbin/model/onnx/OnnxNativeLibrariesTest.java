package dev.tenbin.model.onnx;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** ONNX Runtime's libraries are copied once per release into a cache, not once per process. */
class OnnxNativeLibrariesTest {
  @TempDir Path tmp;

  private Path jar(String name, Map<String, String> entries) throws IOException {
    Path jar = tmp.resolve(name);
    try (ZipOutputStream zip = new ZipOutputStream(Files.newOutputStream(jar))) {
      for (var entry : entries.entrySet()) {
        zip.putNextEntry(new ZipEntry(entry.getKey()));
        zip.write(entry.getValue().getBytes(StandardCharsets.UTF_8));
        zip.closeEntry();
      }
    }
    return jar;
  }

  private static List<String> names(Path folder) throws IOException {
    try (Stream<Path> files = Files.list(folder)) {
      return files.map(file -> file.getFileName().toString()).sorted().toList();
    }
  }

  @Test
  void thePlatformsLibrariesAreCopiedOnceIntoAFolderNamedByTheirContent() throws Exception {
    Path jar =
        jar(
            "ort.jar",
            Map.of(
                "ai/onnxruntime/native/linux-x64/libonnxruntime.so", "runtime",
                "ai/onnxruntime/native/linux-x64/libonnxruntime4j_jni.so", "binding",
                "ai/onnxruntime/native/linux-x64/nested/libother.so", "not a library of the folder",
                "ai/onnxruntime/native/osx-aarch64/libonnxruntime.dylib", "another platform",
                "ai/onnxruntime/OrtEnvironment.class", "a class"));
    Path cache = tmp.resolve("cache");

    Path folder = OnnxNativeLibraries.extract(jar, "linux-x64", cache).orElseThrow();

    assertThat(folder.getParent()).isEqualTo(cache);
    assertThat(folder.getFileName().toString()).matches("onnxruntime-[0-9a-f]{16}");
    assertThat(names(folder)).containsExactly("libonnxruntime.so", "libonnxruntime4j_jni.so");
    assertThat(Files.readString(folder.resolve("libonnxruntime.so"))).isEqualTo("runtime");
    assertThat(Files.readString(folder.resolve("libonnxruntime4j_jni.so"))).isEqualTo("binding");

    // A second process finds the copies intact and leaves them as they are.
    FileTime old = FileTime.fromMillis(1_000_000_000_000L);
    Files.setLastModifiedTime(folder.resolve("libonnxruntime.so"), old);
    assertThat(OnnxNativeLibraries.extract(jar, "linux-x64", cache)).contains(folder);
    assertThat(Files.getLastModifiedTime(folder.resolve("libonnxruntime.so"))).isEqualTo(old);
    assertThat(names(cache)).containsExactly(folder.getFileName().toString());
  }

  @Test
  void aDamagedCopyIsReplacedAndAnotherReleaseGetsAnotherFolder() throws Exception {
    Path jar = jar("ort.jar", Map.of("ai/onnxruntime/native/linux-x64/libonnxruntime.so", "abcd"));
    Path cache = tmp.resolve("cache");
    Path folder = OnnxNativeLibraries.extract(jar, "linux-x64", cache).orElseThrow();
    Files.writeString(folder.resolve("libonnxruntime.so"), "abXd"); // same size, other bytes

    assertThat(OnnxNativeLibraries.extract(jar, "linux-x64", cache)).contains(folder);
    assertThat(Files.readString(folder.resolve("libonnxruntime.so"))).isEqualTo("abcd");
    assertThat(names(folder)).containsExactly("libonnxruntime.so");

    Path next =
        jar("ort-next.jar", Map.of("ai/onnxruntime/native/linux-x64/libonnxruntime.so", "efgh"));
    Path nextFolder = OnnxNativeLibraries.extract(next, "linux-x64", cache).orElseThrow();
    assertThat(nextFolder).isNotEqualTo(folder);
    assertThat(Files.readString(nextFolder.resolve("libonnxruntime.so"))).isEqualTo("efgh");
    assertThat(Files.readString(folder.resolve("libonnxruntime.so"))).isEqualTo("abcd");
  }

  @Test
  void aJarWithoutLibrariesForThisPlatformChangesNothing() throws Exception {
    Path jar = jar("ort.jar", Map.of("ai/onnxruntime/native/win-x64/onnxruntime.dll", "dll"));

    assertThat(OnnxNativeLibraries.extract(jar, "linux-x64", tmp.resolve("cache"))).isEmpty();
    assertThat(tmp.resolve("cache")).doesNotExist();
  }

  @Test
  void theCacheIsTheConfiguredFolderWhenOneIsGiven() {
    String before = System.getProperty(OnnxNativeLibraries.CACHE_PROPERTY);
    try {
      System.setProperty(OnnxNativeLibraries.CACHE_PROPERTY, tmp.resolve("mine").toString());
      assertThat(OnnxNativeLibraries.cacheDirectory()).contains(tmp.resolve("mine"));
      System.clearProperty(OnnxNativeLibraries.CACHE_PROPERTY);
      Optional<Path> fallback = OnnxNativeLibraries.cacheDirectory();
      assertThat(fallback).isPresent();
      assertThat(fallback.get().toString()).endsWith("tenbin/native");
    } finally {
      if (before == null) {
        System.clearProperty(OnnxNativeLibraries.CACHE_PROPERTY);
      } else {
        System.setProperty(OnnxNativeLibraries.CACHE_PROPERTY, before);
      }
    }
  }

  @Test
  void aProcessThatLoadsOnnxRuntimeLeavesNothingInItsTemporaryFolder() throws Exception {
    Path temporary = Files.createDirectories(tmp.resolve("java-tmp"));
    Path cache = tmp.resolve("native");
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    // This JVM's flags (the project's: -Xss4m, --add-opens, ...), without agents and temp folders.
    java.lang.management.ManagementFactory.getRuntimeMXBean().getInputArguments().stream()
        .filter(flag -> !flag.startsWith("-agentlib") && !flag.startsWith("-javaagent"))
        .filter(flag -> !flag.startsWith("-Djava.io.tmpdir") && !flag.startsWith("-D" + "tenbin."))
        .forEach(command::add);
    command.add("-Djava.io.tmpdir=" + temporary);
    command.add("-D" + OnnxNativeLibraries.CACHE_PROPERTY + "=" + cache);
    command.addAll(
        List.of("-cp", System.getProperty("java.class.path"), LoadOnnxRuntime.class.getName()));

    for (int run = 0; run < 2; run++) {
      Process child = new ProcessBuilder(command).redirectErrorStream(true).start();
      String output = new String(child.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      assertThat(child.waitFor(120, TimeUnit.SECONDS)).isTrue();
      assertThat(child.exitValue()).as(output).isZero();
      assertThat(output).contains("onnxruntime " + OnnxEnvironment.version());
      assertThat(names(temporary))
          .as("what ONNX Runtime left in java.io.tmpdir (the child printed: %s)", output)
          .isEmpty();
      assertThat(names(cache)).hasSize(1);
      Path folder = cache.resolve(names(cache).getFirst());
      assertThat(output).contains("from " + folder);
      assertThat(names(folder)).contains("libonnxruntime.so", "libonnxruntime4j_jni.so");
    }
  }

  /** The child of the test above: loads ONNX Runtime the way Tenbin does and says from where. */
  public static final class LoadOnnxRuntime {
    public static void main(String[] args) {
      System.out.println(
          "onnxruntime "
              + OnnxEnvironment.version()
              + " from "
              + System.getProperty(OnnxNativeLibraries.NATIVE_PATH_PROPERTY));
    }
  }
}
