package dev.tenbin.client.eval;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tenbin.client.CallPolicy;
import dev.tenbin.client.FakeService;
import dev.tenbin.client.TestServers;
import dev.tenbin.proto.eval.v1.EvalServiceGrpc;
import dev.tenbin.proto.eval.v1.SubmitJobRequest;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * {@link EvalClient}'s policy against a fake eval service: reading calls are retried after
 * UNAVAILABLE, submitting and cancelling a job are not, and unary calls have the deadline.
 */
class EvalClientTest {
  @Test
  void readsAreRetriedAndSubmitAndCancelAreNot() throws Exception {
    FakeService eval =
        FakeService.failingFirst(EvalServiceGrpc.getServiceDescriptor(), 1, Status.UNAVAILABLE);
    try (var server = TestServers.inProcess(eval)) {
      EvalClient client =
          new EvalClient(server.channel(), new CallPolicy(Duration.ofSeconds(10), 3));
      client.getJob("j");
      assertThat(client.listJobs()).isEmpty();
      assertThat(client.listJobFiles("j")).isEmpty();
      assertThat(eval.calls("GetJob")).isEqualTo(2);
      assertThat(eval.calls("ListJobs")).isEqualTo(2);
      assertThat(eval.calls("ListJobFiles")).isEqualTo(2);

      for (Runnable write :
          new Runnable[] {
            () -> client.submitJob(SubmitJobRequest.getDefaultInstance()),
            () -> client.cancelJob("j")
          }) {
        assertThatThrownBy(write::run)
            .isInstanceOfSatisfying(
                StatusRuntimeException.class,
                e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE));
      }
      assertThat(eval.calls("SubmitJob")).isEqualTo(1);
      assertThat(eval.calls("CancelJob")).isEqualTo(1);
    }
  }

  @Test
  void unaryCallsHaveTheDeadline() throws Exception {
    FakeService silent = FakeService.silent(EvalServiceGrpc.getServiceDescriptor());
    try (var server = TestServers.inProcess(silent)) {
      EvalClient client = EvalClient.of(server.channel()).withDeadline(Duration.ofMillis(250));
      long start = System.nanoTime();
      assertThatThrownBy(() -> client.getJob("j"))
          .isInstanceOfSatisfying(
              StatusRuntimeException.class,
              e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.DEADLINE_EXCEEDED));
      assertThatThrownBy(() -> client.submitJob(SubmitJobRequest.getDefaultInstance()))
          .isInstanceOfSatisfying(
              StatusRuntimeException.class,
              e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.DEADLINE_EXCEEDED));
      assertThat(Duration.ofNanos(System.nanoTime() - start).toMillis()).isBetween(480L, 5_000L);
      assertThat(silent.calls("GetJob")).isEqualTo(1);
    }
  }
}
