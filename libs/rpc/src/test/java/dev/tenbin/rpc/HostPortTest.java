package dev.tenbin.rpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tenbin.core.InvalidInputException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The one endpoint parser: host:port and [ipv6]:port, and a clear error naming the flag otherwise.
 */
class HostPortTest {
  @Test
  void hostAndPortAreSplitAtTheColon() {
    assertThat(HostPort.parse("--endpoint", "index.internal:50052"))
        .isEqualTo(new HostPort("index.internal", 50052));
    assertThat(HostPort.parse("--endpoint", " 10.0.0.7:1 ")).isEqualTo(new HostPort("10.0.0.7", 1));
  }

  @Test
  void anIpv6AddressInBracketsKeepsItsColonsAndPrintsBackInBrackets() {
    HostPort address = HostPort.parse("--encoder-endpoint", "[::1]:50051");
    assertThat(address).isEqualTo(new HostPort("::1", 50051));
    assertThat(address.toString()).isEqualTo("[::1]:50051");
    assertThat(HostPort.parse("--x", "[fe80::1:2]:65535").host()).isEqualTo("fe80::1:2");
    assertThat(HostPort.parse("--x", address.toString())).isEqualTo(address);
  }

  @ParameterizedTest(name = "[{index}] ''{0}'' → {1}")
  @CsvSource(
      delimiter = '|',
      value = {
        "localhost|missing its port",
        "localhost:|missing its port",
        ":50051|missing its host",
        "host:http|port within 1..65535",
        "host:0|port within 1..65535",
        "host:65536|port within 1..65535",
        "host:-1|port within 1..65535",
        "host:99999999999|port within 1..65535",
        "::1:50051|several ':'",
        "[::1]50051|missing its port",
        "[::1]:|missing its port",
        "[::1:50051|without ']'",
        "[]:50051|IPv6 address inside",
        "http://host:80|without a scheme",
        "my host:80|space in its host",
      })
  void aMalformedEndpointIsRefusedNamingTheFlagAndTheValue(String value, String problem) {
    assertThatThrownBy(() -> HostPort.parse("--rerank-endpoint", value))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageStartingWith("--rerank-endpoint ")
        .hasMessageContaining(problem)
        .hasMessageContaining("'" + value + "'")
        .satisfies(
            e -> assertThat(((InvalidInputException) e).field()).isEqualTo("--rerank-endpoint"));
  }

  @Test
  void aMissingValueIsRefusedNamingTheFlag() {
    assertThatThrownBy(() -> HostPort.parse("--endpoint", null))
        .hasMessage("--endpoint must be HOST:PORT, got ''");
    assertThatThrownBy(() -> HostPort.parse("--endpoint", " "))
        .hasMessageContaining("--endpoint must be HOST:PORT");
  }
}
