package dev.tenbin.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The ordered shutdown runs in a child JVM: registering steps there and exiting runs them in order.
 */
class OrderedShutdownTest {
  /** The child: registers steps that print their names, drops one, then exits. */
  public static final class Child {
    public static void main(String[] args) {
      OrderedShutdown.register(
          OrderedShutdown.Stage.NATIVE, "native", () -> System.out.println("native"));
      OrderedShutdown.register(
          OrderedShutdown.Stage.WORKERS, "worker-1", () -> System.out.println("worker-1"));
      OrderedShutdown.register(
          OrderedShutdown.Stage.SERVERS,
          "server",
          () -> {
            System.out.println("server");
            // Nothing native may start once the process is draining.
            try {
              OrderedShutdown.register(
                  OrderedShutdown.Stage.NATIVE, "late", () -> System.out.println("late"));
              System.out.println("late registration accepted");
            } catch (UnavailableException refused) {
              System.out.println("late registration refused");
            }
          });
      OrderedShutdown.register(
          OrderedShutdown.Stage.WORKERS, "worker-2", () -> System.out.println("worker-2"));
      OrderedShutdown.register(
              OrderedShutdown.Stage.WORKERS, "dropped", () -> System.out.println("dropped"))
          .close();
      System.out.flush();
      System.exit(0);
    }
  }

  @Test
  void stagesCloseInOrderLaterRegistrationsFirstAndDroppedStepsNever() throws Exception {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    List<String> command =
        new ArrayList<>(
            List.of(java, "-cp", System.getProperty("java.class.path"), Child.class.getName()));
    Process child =
        new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.DISCARD).start();
    assertThat(child.waitFor(60, TimeUnit.SECONDS)).isTrue();
    List<String> lines =
        new String(child.getInputStream().readAllBytes(), StandardCharsets.UTF_8)
            .lines()
            .filter(l -> !l.isBlank())
            .toList();
    assertThat(child.exitValue()).isZero();
    assertThat(lines)
        .containsExactly("server", "late registration refused", "worker-2", "worker-1", "native");
  }
}
