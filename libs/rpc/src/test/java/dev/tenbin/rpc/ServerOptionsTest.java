package dev.tenbin.rpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/**
 * Every server's network options: one validated settings record, bad values refused naming the
 * flag.
 */
class ServerOptionsTest {
  @Command(name = "some-server")
  static final class SomeServer {
    @Mixin ServerOptions options = new ServerOptions();
  }

  private static ServerSettings settings(int defaultPort, String... args) {
    SomeServer server = new SomeServer();
    new CommandLine(server).parseArgs(args);
    return server.options.toSettings(defaultPort);
  }

  @Test
  void withoutAPortFlagTheServicesOwnDefaultPortApplies() {
    assertThat(settings(50053).port()).isEqualTo(50053);
    assertThat(settings(50053, "--port", "0").port()).isZero();
    assertThat(settings(50053, "--port", "7000").port()).isEqualTo(7000);
  }

  @Test
  void connectionsAreNeverAgedOutUnlessAMaxConnectionAgeIsGiven() {
    assertThat(settings(1).limits().maxConnectionAge()).isZero();
    ServingLimits aged =
        settings(
                1,
                "--max-connection-age-seconds",
                "300",
                "--max-connection-age-grace-seconds",
                "60")
            .limits();
    assertThat(aged.maxConnectionAge()).isEqualTo(java.time.Duration.ofMinutes(5));
    assertThat(aged.maxConnectionAgeGrace()).isEqualTo(java.time.Duration.ofMinutes(1));
  }

  @Test
  void aPortThatIsNotANumberIsAParseErrorNamingTheFlag() {
    assertThatThrownBy(() -> settings(1, "--port", "http"))
        .isInstanceOf(CommandLine.ParameterException.class)
        .hasMessageContaining("--port")
        .hasMessageContaining("http");
  }

  @ParameterizedTest(name = "[{index}] {0} {1}")
  @CsvSource({
    "--port,70000,--port must be within 0..65535",
    "--port,-2,--port must be within 0..65535",
    "--metrics-port,-7,--metrics-port must be -1 (off) or within 0..65535",
    "--metrics-port,65536,--metrics-port must be at most 65535",
    "--max-message-bytes,100,--max-message-bytes must be at least 1024",
    "--max-metadata-bytes,10,--max-metadata-bytes must be at least 1024",
    "--shutdown-grace-seconds,-1,--shutdown-grace-seconds must not be negative",
    "--tls-reload-seconds,0,--tls-reload-seconds must be at least 1",
    "--handler-threads,-1,--handler-threads must be 0 (its default) or positive",
    "--max-concurrent-calls,-4,--max-concurrent-calls must be 0 (its default) or positive",
    "--max-concurrent-calls-per-connection,-1,--max-concurrent-calls-per-connection must be 0",
    "--max-connection-age-seconds,-1,--max-connection-age-seconds must be 0 (never) or positive",
    "--max-connection-age-grace-seconds,0,--max-connection-age-grace-seconds must be positive",
    "--keepalive-seconds,0,--keepalive-seconds must be positive",
    "--keepalive-timeout-seconds,0,--keepalive-timeout-seconds must be positive",
    "--max-connection-idle-seconds,0,--max-connection-idle-seconds must be positive",
    "--host,' ',--host must not be blank",
  })
  void aBadValueIsRefusedNamingTheFlag(String flag, String value, String message) {
    assertThatThrownBy(() -> settings(50052, flag, value))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(message);
  }

  @Test
  void aStoppedHostClosesWhatItOwnsAfterTheServerLastOwnedFirst() {
    List<String> closed = new ArrayList<>();
    GrpcServerHost host =
        GrpcServerHost.startInProcess(
            "owning-" + UUID.randomUUID(), new SimpleMeterRegistry(), List.of());
    host.owning(() -> closed.add("channel")).owning(() -> closed.add("core"));
    assertThat(closed).isEmpty();
    host.close();
    assertThat(closed).containsExactly("core", "channel");
    host.close();
    assertThat(closed).as("a second close closes nothing twice").hasSize(2);
    host.owning(() -> closed.add("late"));
    assertThat(closed).as("handed to a stopped host: closed at once").endsWith("late");
  }
}
