package dev.tenbin.k8s;

import static org.assertj.core.api.Assertions.assertThat;

import io.kubernetes.client.openapi.models.V1Container;
import io.kubernetes.client.openapi.models.V1PodSpec;
import io.kubernetes.client.openapi.models.V1VolumeMount;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The image's entrypoint script ({@code app/src/main/jib/usr/local/bin/tenbin}) run with a {@code
 * java} that prints its arguments: the JVM flags every server pod starts with, and the volume the
 * native-library folder lives on in every server pod the chart renders.
 */
class ImageEntrypointTest {
  private static final Path SCRIPT =
      Path.of("..", "..", "app", "src", "main", "jib", "usr", "local", "bin", "tenbin");
  private static final String CACHE = "/var/cache/tenbin";

  @TempDir Path bin;

  @Test
  void onnxRuntimesLibrariesGoToThePodsCacheVolumeNotToTmp() throws Exception {
    List<String> args = javaArguments(Map.of(), "serve", "encoder");
    assertThat(args).contains("-Dtenbin.native.dir=" + CACHE + "/native", "-Djava.io.tmpdir=/tmp");
    assertThat(args).contains("-XX:MaxRAMPercentage=75");
    assertThat(args.subList(args.size() - 2, args.size())).containsExactly("serve", "encoder");

    List<String> chosen =
        javaArguments(
            Map.of("TENBIN_NATIVE_DIR", "/opt/native", "TENBIN_HEAP_PERCENT", "50"), "--help");
    assertThat(chosen).contains("-Dtenbin.native.dir=/opt/native", "-XX:MaxRAMPercentage=50");
  }

  @Test
  void everyServerPodHasAWritableCacheVolumeForTheNativeLibraries() {
    for (String values : List.of("default", "gpu", "tls")) {
      List<V1PodSpec> pods = Charts.serverPodSpecs(ChartRenderingTest.rendered(values));
      assertThat(pods).hasSize(4);
      for (V1PodSpec pod : pods) {
        V1Container server = pod.getContainers().getFirst();
        assertThat(server.getVolumeMounts())
            .as(server.getName())
            .filteredOn(m -> CACHE.equals(m.getMountPath()))
            .singleElement()
            .extracting(V1VolumeMount::getReadOnly)
            .isNotEqualTo(Boolean.TRUE);
      }
    }
  }

  private List<String> javaArguments(Map<String, String> env, String... command)
      throws IOException, InterruptedException {
    Path java = bin.resolve("java");
    Files.writeString(java, "#!/bin/sh\nfor a in \"$@\"; do echo \"$a\"; done\n");
    Files.setPosixFilePermissions(java, PosixFilePermissions.fromString("rwxr-xr-x"));
    ProcessBuilder builder = new ProcessBuilder("/bin/sh", SCRIPT.toString());
    builder.command().addAll(List.of(command));
    builder.environment().put("PATH", bin + ":/usr/bin:/bin");
    builder.environment().remove("TENBIN_NATIVE_DIR");
    builder.environment().remove("TENBIN_HEAP_PERCENT");
    builder.environment().remove("TENBIN_JAVA_OPTS");
    builder.environment().putAll(env);
    builder.redirectErrorStream(true);
    Process process = builder.start();
    String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(process.waitFor(30, TimeUnit.SECONDS)).isTrue();
    assertThat(process.exitValue()).as(out).isZero();
    return out.lines().toList();
  }
}
