package dev.tenbin.rpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tenbin.core.InvalidInputException;
import org.junit.jupiter.api.Test;

/** Endpoint flags name a direct address or a dns:/// name balanced with round_robin. */
class ServiceTargetTest {
  @Test
  void aPlainHostAndPortIsADirectTargetAsBefore() {
    ServiceTarget target = ServiceTarget.parse("--encoder-endpoint", "tenbin-encoder:50051");
    assertThat(target.balanced()).isFalse();
    assertThat(target.address()).isEqualTo(new HostPort("tenbin-encoder", 50051));
    assertThat(target.toString()).isEqualTo("tenbin-encoder:50051");
  }

  @Test
  void aDnsTargetIsBalancedAndPrintsBackTheSame() {
    ServiceTarget target =
        ServiceTarget.parse("--encoder-endpoint", "dns:///tenbin-encoder-headless:50051");
    assertThat(target.balanced()).isTrue();
    assertThat(target.scheme()).isEqualTo("dns");
    assertThat(target.address()).isEqualTo(new HostPort("tenbin-encoder-headless", 50051));
    assertThat(target.channelTarget()).isEqualTo("dns:///tenbin-encoder-headless:50051");
    assertThat(ServiceTarget.parse("--x", target.toString())).isEqualTo(target);
    assertThat(ServiceTarget.parse("--x", "dns:///[::1]:7").address())
        .isEqualTo(new HostPort("::1", 7));
  }

  @Test
  void otherSchemesAuthoritiesAndMissingPortsAreRefusedNamingTheFlag() {
    assertThatThrownBy(() -> ServiceTarget.parse("--encoder-endpoint", "xds:///encoder:1"))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("--encoder-endpoint must be HOST:PORT or dns:///HOST:PORT");
    assertThatThrownBy(() -> ServiceTarget.parse("--x", "dns://8.8.8.8/encoder:1"))
        .isInstanceOf(InvalidInputException.class);
    assertThatThrownBy(() -> ServiceTarget.parse("--x", "dns:///encoder"))
        .hasMessageContaining("missing its port");
  }

  @Test
  void theClientPingsLessOftenThanServersPermitSoItIsNeverToldToStop() {
    assertThat(ServiceTarget.KEEPALIVE_TIME).isGreaterThan(ServingLimits.PERMIT_KEEPALIVE_TIME);
  }
}
