package dev.tenbin.rpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Isolated;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** One format for every event on standard error, Tenbin's and java.util.logging's alike. */
@Isolated("swaps System.err and the process's log format")
class ProcessLoggingTest {
  private static final Logger log = LoggerFactory.getLogger(ProcessLoggingTest.class);

  @AfterEach
  void backToText() {
    ProcessLogging.use(ProcessLogging.Format.TEXT);
  }

  /** The lines {@code logging} writes to standard error. */
  private static List<String> stderrOf(Runnable logging) {
    PrintStream saved = System.err;
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    System.setErr(new PrintStream(bytes, true, StandardCharsets.UTF_8));
    try {
      logging.run();
    } finally {
      System.setErr(saved);
    }
    return bytes.toString(StandardCharsets.UTF_8).lines().toList();
  }

  private static void bothKinds() {
    log.info("listening on {}:{}", "127.0.0.1", 50051);
    java.util.logging.Logger.getLogger("io.grpc.test").warning("a library's warning");
  }

  @Test
  void textLinesCarryUtcTimeLevelThreadAndLoggerForTenbinAndJulAlike() {
    List<String> lines = stderrOf(ProcessLoggingTest::bothKinds);
    assertThat(lines).hasSize(2);
    String stamp = "\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}Z";
    assertThat(lines.get(0))
        .matches(
            stamp
                + " INFO  \\[[^]]+\\] dev\\.tenbin\\.rpc\\.ProcessLoggingTest - listening on 127\\.0\\.0\\.1:50051");
    assertThat(lines.get(1))
        .matches(stamp + " WARN  \\[[^]]+\\] io\\.grpc\\.test - a library's warning");
  }

  @Test
  void jsonIsOneObjectALineWithTheFieldsCollectorsRead() throws Exception {
    ProcessLogging.use(ProcessLogging.Format.JSON);
    List<String> lines = stderrOf(ProcessLoggingTest::bothKinds);
    assertThat(lines).hasSize(2);
    ObjectMapper json = new ObjectMapper();
    JsonNode first = json.readTree(lines.get(0));
    assertThat(first.get("level").asText()).isEqualTo("INFO");
    assertThat(first.get("loggerName").asText()).isEqualTo(ProcessLoggingTest.class.getName());
    assertThat(first.get("formattedMessage").asText()).isEqualTo("listening on 127.0.0.1:50051");
    assertThat(first.get("timestamp").asLong()).isPositive();
    JsonNode second = json.readTree(lines.get(1));
    assertThat(second.get("level").asText()).isEqualTo("WARN");
    assertThat(second.get("loggerName").asText()).isEqualTo("io.grpc.test");
  }

  @Test
  void aLineWriterMakesOneEventALine() {
    Consumer<PrintWriter> report =
        out -> {
          out.println("tenbin: leaderboards a.html, a.md");
          out.print("tenbin: warehouse w.duckdb");
          out.close();
        };
    List<String> lines = stderrOf(() -> report.accept(ProcessLogging.lineWriter(log)));
    assertThat(lines).hasSize(2);
    assertThat(lines.get(0)).endsWith(" - leaderboards a.html, a.md");
    assertThat(lines.get(1)).endsWith(" - warehouse w.duckdb");
  }

  /** A value a client chose to forge a line of its own, as {@code --out $'x\n...'} would. */
  private static final String FORGED =
      "x\n2026-11-27T22:41:34.123Z ERROR [main] d.t.rpc.GrpcServerHost - forged\r\u2028\u0000";

  private static final String STAMP = "\\d{4}-\\d\\d-\\d\\dT.*";

  @Test
  void aLoggedValueWithLineBreaksStaysOnItsEventsLineEscaped() {
    List<String> lines =
        stderrOf(
            () -> {
              log.warn("no collection {}", FORGED);
              java.util.logging.Logger.getLogger("io.grpc.test").warning("method " + FORGED);
            });

    assertThat(lines).hasSize(2);
    assertThat(lines.get(0))
        .endsWith(
            " - no collection x\\n2026-11-27T22:41:34.123Z ERROR [main] d.t.rpc.GrpcServerHost"
                + " - forged\\r\\u2028\\u0000");
    assertThat(lines.get(1)).contains("method x\\n2026").endsWith("\\u0000");
  }

  @Test
  void anExceptionMessageWithLineBreaksCannotStartALineOfItsOwn() {
    List<String> lines =
        stderrOf(
            () ->
                log.error(
                    "ingest failed",
                    new IllegalStateException(
                        "bad " + FORGED, new IllegalArgumentException("cause " + FORGED))));

    assertThat(lines.getFirst()).endsWith(" - ingest failed");
    assertThat(lines.subList(1, lines.size()))
        .isNotEmpty()
        .noneMatch(line -> line.matches(STAMP))
        .anyMatch(line -> line.startsWith("java.lang.IllegalStateException: bad x\\n2026"))
        .anyMatch(
            line -> line.startsWith("Caused by: java.lang.IllegalArgumentException: cause x\\n"));
  }

  @Test
  void jsonKeepsTheValueWholeOnOneLine() throws Exception {
    ProcessLogging.use(ProcessLogging.Format.JSON);
    List<String> lines = stderrOf(() -> log.warn("no collection {}", FORGED));

    assertThat(lines).hasSize(1);
    assertThat(new ObjectMapper().readTree(lines.getFirst()).get("formattedMessage").asText())
        .isEqualTo("no collection " + FORGED);
  }

  @Test
  void anUnknownFormatIsRefusedNamingTheFlag() {
    assertThat(ProcessLogging.Format.parse("JSON")).isEqualTo(ProcessLogging.Format.JSON);
    assertThatThrownBy(() -> ProcessLogging.Format.parse("xml"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("--log-format must be text or json, got 'xml'");
  }
}
