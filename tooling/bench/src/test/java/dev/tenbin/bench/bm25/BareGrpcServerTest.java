package dev.tenbin.bench.bm25;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import org.junit.jupiter.api.Test;

/** The bare gRPC-Java server of {@code bench bm25}: gRPC-Java alone, with a handler that works. */
class BareGrpcServerTest {
  @Test
  void aWorkCallSpinsTheHandlerForTheRequestedTimeAndTheClientWaitsForIt() {
    try (BareGrpcServer bare = BareGrpcServer.start()) {
      long requested = 2_000_000;

      long start = System.nanoTime();
      long spun = bare.work(requested);
      long waited = System.nanoTime() - start;

      assertThat(spun).isGreaterThanOrEqualTo(requested);
      assertThat(waited).isGreaterThanOrEqualTo(spun);
      assertThat(bare.work(0)).isGreaterThanOrEqualTo(0);
    }
  }

  @Test
  void itServesTheHealthService() {
    try (BareGrpcServer bare = BareGrpcServer.start()) {
      assertThatCode(bare::checkHealth).doesNotThrowAnyException();
    }
  }

  @Test
  void spinKeepsTheThreadBusyAtLeastAsLongAsAsked() {
    long start = System.nanoTime();

    long spun = BareGrpcServer.spin(500_000);

    assertThat(spun).isGreaterThanOrEqualTo(500_000);
    assertThat(System.nanoTime() - start).isGreaterThanOrEqualTo(spun);
  }
}
