package dev.tenbin.drill;

import dev.tenbin.client.eval.EvalClient;
import dev.tenbin.proto.eval.v1.Job;
import dev.tenbin.proto.eval.v1.JobState;
import dev.tenbin.proto.eval.v1.SubmitJobRequest;
import dev.tenbin.proto.eval.v1.TaskSetDocument;
import dev.tenbin.rpc.ClientChannels;
import dev.tenbin.rpc.ClientSecurity;
import io.grpc.ManagedChannel;
import io.grpc.StatusRuntimeException;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthCheckResponse;
import io.grpc.health.v1.HealthGrpc;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/** What drills need to talk to the services they start: loopback channels, health, jobs. */
final class DrillClients {
  private DrillClients() {}

  static ManagedChannel channel(int port) {
    return ClientChannels.open(
        "127.0.0.1",
        port,
        ClientSecurity.plaintext(),
        ClientChannels.DEFAULT_MAX_INBOUND_MESSAGE_BYTES);
  }

  static void close(ManagedChannel channel) {
    channel.shutdownNow();
    try {
      channel.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Whether the service answers its health check SERVING within 5 s. */
  static boolean serving(ManagedChannel channel) {
    try {
      return HealthGrpc.newBlockingStub(channel)
              .withDeadlineAfter(5, TimeUnit.SECONDS)
              .check(HealthCheckRequest.getDefaultInstance())
              .getStatus()
          == HealthCheckResponse.ServingStatus.SERVING;
    } catch (StatusRuntimeException e) {
      return false;
    }
  }

  /** Submits a job whose one task set is sent inline. */
  static Job submit(
      ManagedChannel eval,
      String specYaml,
      String taskSetName,
      String taskSetYaml,
      String baseDirectory,
      String out) {
    return EvalClient.of(eval)
        .submitJob(
            SubmitJobRequest.newBuilder()
                .setSpecYaml(specYaml)
                .setOutputDir(out)
                .addTaskSets(
                    TaskSetDocument.newBuilder()
                        .setName(taskSetName)
                        .setYaml(taskSetYaml)
                        .setBaseDir(baseDirectory))
                .build());
  }

  /**
   * Polls the job until {@code until} holds; a service that does not answer (restarting) is asked
   * again. Empty when the time runs out.
   */
  static Optional<Job> awaitJob(
      ManagedChannel eval, String id, Predicate<Job> until, Duration timeout)
      throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (System.nanoTime() < deadline) {
      try {
        Job job = EvalClient.of(eval).withDeadline(Duration.ofSeconds(10)).getJob(id);
        if (until.test(job)) {
          return Optional.of(job);
        }
      } catch (StatusRuntimeException unavailable) {
        eval.resetConnectBackoff();
      }
      Thread.sleep(50);
    }
    return Optional.empty();
  }

  static boolean finished(Job job) {
    return job.getState() == JobState.JOB_STATE_SUCCEEDED
        || job.getState() == JobState.JOB_STATE_FAILED
        || job.getState() == JobState.JOB_STATE_CANCELLED;
  }
}
