package dev.tenbin.client.rerank;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tenbin.client.CallPolicy;
import dev.tenbin.client.FakeService;
import dev.tenbin.client.TestServers;
import dev.tenbin.proto.rerank.v1.RerankRequest;
import dev.tenbin.proto.rerank.v1.RerankServiceGrpc;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * {@link RerankClient}'s policy against a fake rerank service: every call (all read) is retried
 * after UNAVAILABLE up to the attempts, never after another code, and has the deadline.
 */
class RerankClientTest {
  @Test
  void everyCallIsRetriedAfterUnavailable() throws Exception {
    FakeService rerank =
        FakeService.failingFirst(RerankServiceGrpc.getServiceDescriptor(), 2, Status.UNAVAILABLE);
    try (var server = TestServers.inProcess(rerank)) {
      RerankClient client =
          new RerankClient(server.channel(), new CallPolicy(Duration.ofSeconds(10), 3));
      client.rerank(RerankRequest.getDefaultInstance());
      client.rerankerInfo("m");
      assertThat(client.listRerankers()).isEmpty();
      assertThat(rerank.calls("Rerank")).isEqualTo(3);
      assertThat(rerank.calls("GetRerankerInfo")).isEqualTo(3);
      assertThat(rerank.calls("ListRerankers")).isEqualTo(3);
    }
  }

  @Test
  void unavailableBeyondTheAttemptsAndOtherCodesFail() throws Exception {
    FakeService down =
        FakeService.failingFirst(RerankServiceGrpc.getServiceDescriptor(), 9, Status.UNAVAILABLE);
    FakeService refusing =
        FakeService.failingFirst(
            RerankServiceGrpc.getServiceDescriptor(), 9, Status.INVALID_ARGUMENT);
    try (var a = TestServers.inProcess(down);
        var b = TestServers.inProcess(refusing)) {
      CallPolicy twice = new CallPolicy(Duration.ofSeconds(10), 2);
      assertThatThrownBy(
              () -> new RerankClient(a.channel(), twice).rerank(RerankRequest.getDefaultInstance()))
          .isInstanceOfSatisfying(
              StatusRuntimeException.class,
              e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE));
      assertThat(down.calls("Rerank")).isEqualTo(2);
      assertThatThrownBy(
              () -> new RerankClient(b.channel(), twice).rerank(RerankRequest.getDefaultInstance()))
          .isInstanceOfSatisfying(
              StatusRuntimeException.class,
              e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT));
      assertThat(refusing.calls("Rerank")).isEqualTo(1);
    }
  }

  @Test
  void aRerankerThatNeverAnswersFailsAtTheDeadline() throws Exception {
    FakeService silent = FakeService.silent(RerankServiceGrpc.getServiceDescriptor());
    try (var server = TestServers.inProcess(silent)) {
      RerankClient client = RerankClient.of(server.channel()).withDeadline(Duration.ofMillis(250));
      long start = System.nanoTime();
      assertThatThrownBy(() -> client.rerank(RerankRequest.getDefaultInstance()))
          .isInstanceOfSatisfying(
              StatusRuntimeException.class,
              e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.DEADLINE_EXCEEDED));
      assertThat(Duration.ofNanos(System.nanoTime() - start).toMillis()).isBetween(230L, 5_000L);
      assertThat(silent.calls("Rerank")).isEqualTo(1);
    }
  }
}
