package dev.tenbin.integration.job;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenbin.core.Cancellation;
import dev.tenbin.eval.job.JobLauncher;
import dev.tenbin.eval.job.JobListener;
import dev.tenbin.eval.job.JobOutcome;
import dev.tenbin.eval.job.JobRunner;
import dev.tenbin.eval.job.JobSpec;
import dev.tenbin.eval.plan.Work;
import dev.tenbin.eval.store.ResultStore;
import dev.tenbin.index.collection.CollectionCatalog;
import dev.tenbin.index.config.IndexServiceConfig;
import dev.tenbin.index.grpc.IndexGrpcService;
import dev.tenbin.rpc.ExceptionMappingInterceptor;
import dev.tenbin.rpc.ServiceEndpoint;
import dev.tenbin.scoring.beir.SyntheticBeir;
import io.grpc.ForwardingServerCall;
import io.grpc.Metadata;
import io.grpc.Server;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.ServerInterceptors;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A service that is UNAVAILABLE for a while (restarting, rescheduled) does not fail the job: the
 * work item waits and runs again, and every cell is stored once.
 */
class ServiceRetryTest {
  @TempDir Path tmp;

  /**
   * Refuses the first {@code failures} calls with UNAVAILABLE, as a restarting service's clients
   * see.
   */
  private static ServerInterceptor unavailableFor(int failures, AtomicInteger refused) {
    return new ServerInterceptor() {
      @Override
      public <Q, R> ServerCall.Listener<Q> interceptCall(
          ServerCall<Q, R> call, Metadata headers, ServerCallHandler<Q, R> next) {
        // Work items are what this test retries: the lookups, which retry on their own (the
        // language before the job, IndexLanguageTest; a work item's collection left by an earlier
        // run, IndexSessionResumeTest), go through.
        String method = call.getMethodDescriptor().getBareMethodName();
        if (!method.equals("ResolveLanguage")
            && !method.equals("DescribeCollection")
            && refused.incrementAndGet() <= failures) {
          call.close(Status.UNAVAILABLE.withDescription("restarting"), new Metadata());
          return new ServerCall.Listener<>() {};
        }
        return next.startCall(
            new ForwardingServerCall.SimpleForwardingServerCall<>(call) {}, headers);
      }
    };
  }

  @Test
  void aWorkItemWhoseServiceIsUnavailableForAWhileIsRetriedAndTheJobSucceeds() throws Exception {
    SyntheticBeir.write(tmp.resolve("data"), 30, 12, 5, 3);
    Files.writeString(
        tmp.resolve("tasks.yaml"),
        "name: b\ntasks:\n  - {name: t, language: en, source: {path: data}}\n");
    Path spec = tmp.resolve("job.yaml");
    Files.writeString(spec, "task_sets: [tasks.yaml]\nretrievers: [bm25]\n");
    AtomicInteger calls = new AtomicInteger();
    try (CollectionCatalog catalog = CollectionCatalog.open(tmp.resolve("index"))) {
      Server server =
          NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
              .addService(
                  ServerInterceptors.intercept(
                      new IndexGrpcService(
                          catalog, IndexServiceConfig.embedded(tmp.resolve("index"))),
                      new ExceptionMappingInterceptor(),
                      unavailableFor(2, calls)))
              .build()
              .start();
      try {
        JobLauncher launcher =
            new JobLauncher(
                new JobLauncher.Options(
                    new ServiceEndpoint("127.0.0.1", server.getPort()),
                    null,
                    null,
                    tmp.resolve("models"),
                    tmp.resolve("cache")));
        AtomicInteger retries = new AtomicInteger();
        JobOutcome outcome =
            launcher.run(
                JobSpec.read(spec),
                tmp.resolve("out"),
                new JobListener() {
                  @Override
                  public void workRetrying(Work work, int attempt, String reason) {
                    retries.incrementAndGet();
                    assertThat(reason).contains("UNAVAILABLE");
                  }
                },
                Cancellation.NEVER);

        assertThat(outcome.succeeded()).as(outcome.failures().toString()).isTrue();
        assertThat(retries).hasValue(2);
        assertThat(ResultStore.existing(tmp.resolve("out"), "out").readAll()).hasSize(1);
        assertThat(Files.readString(tmp.resolve("out").resolve("events.jsonl")))
            .contains("\"work_retry\"");
      } finally {
        server.shutdownNow();
      }
    }
  }

  /** Refuses the first {@code failures} ResolveLanguage calls with UNAVAILABLE. */
  private static ServerInterceptor languageUnavailableFor(int failures, AtomicInteger refused) {
    return new ServerInterceptor() {
      @Override
      public <Q, R> ServerCall.Listener<Q> interceptCall(
          ServerCall<Q, R> call, Metadata headers, ServerCallHandler<Q, R> next) {
        if (call.getMethodDescriptor().getBareMethodName().equals("ResolveLanguage")
            && refused.incrementAndGet() <= failures) {
          call.close(Status.UNAVAILABLE.withDescription("restarting"), new Metadata());
          return new ServerCall.Listener<>() {};
        }
        return next.startCall(call, headers);
      }
    };
  }

  @Test
  void aServiceUnavailableWhileTheJobIsPlannedIsWaitedForToo() throws Exception {
    SyntheticBeir.write(tmp.resolve("data"), 30, 12, 5, 3);
    // language auto: the index is asked for it while the job is planned.
    Files.writeString(
        tmp.resolve("tasks.yaml"),
        "name: b\ntasks:\n  - {name: t, language: auto, source: {path: data}}\n");
    Path spec = tmp.resolve("job.yaml");
    Files.writeString(spec, "task_sets: [tasks.yaml]\nretrievers: [bm25]\n");
    AtomicInteger refused = new AtomicInteger();
    try (CollectionCatalog catalog = CollectionCatalog.open(tmp.resolve("index"))) {
      Server server =
          NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
              .addService(
                  ServerInterceptors.intercept(
                      new IndexGrpcService(
                          catalog, IndexServiceConfig.embedded(tmp.resolve("index"))),
                      new ExceptionMappingInterceptor(),
                      // More refusals than one lookup's own retries (four attempts).
                      languageUnavailableFor(6, refused)))
              .build()
              .start();
      try {
        JobLauncher launcher =
            new JobLauncher(
                new JobLauncher.Options(
                    new ServiceEndpoint("127.0.0.1", server.getPort()),
                    null,
                    null,
                    tmp.resolve("models"),
                    tmp.resolve("cache")));
        JobOutcome outcome =
            launcher.run(
                JobSpec.read(spec), tmp.resolve("out"), new JobListener() {}, Cancellation.NEVER);

        assertThat(outcome.succeeded()).as(outcome.failures().toString()).isTrue();
        assertThat(refused.get()).isGreaterThan(6);
        assertThat(ResultStore.existing(tmp.resolve("out"), "out").readAll()).hasSize(1);
      } finally {
        server.shutdownNow();
      }
    }
  }

  @Test
  void waitingForServicesRetriesOnlyUnavailableAndStopsWhenCancelled() {
    AtomicInteger calls = new AtomicInteger();
    assertThat(
            JobRunner.waitingForServices(
                () -> {
                  if (calls.incrementAndGet() < 2) {
                    throw Status.UNAVAILABLE.asRuntimeException();
                  }
                  return "planned";
                },
                java.time.Duration.ofMinutes(1),
                Cancellation.NEVER,
                (attempt, reason) -> {}))
        .isEqualTo("planned");
    assertThat(calls).hasValue(2);
    org.assertj.core.api.Assertions.assertThatThrownBy(
            () ->
                JobRunner.waitingForServices(
                    () -> {
                      throw Status.INVALID_ARGUMENT.asRuntimeException();
                    },
                    java.time.Duration.ofMinutes(1),
                    Cancellation.NEVER,
                    (attempt, reason) -> {}))
        .isInstanceOf(StatusRuntimeException.class);
    assertThat(
            JobRunner.<String>waitingForServices(
                () -> {
                  throw Status.UNAVAILABLE.asRuntimeException();
                },
                java.time.Duration.ofMinutes(1),
                () -> true,
                (attempt, reason) -> {}))
        .isNull();
  }

  @Test
  void onlyUnavailableIsRetriedAndNeverPastTheDeadline() {
    long later = System.nanoTime() + 600_000_000_000L;
    StatusRuntimeException unavailable = Status.UNAVAILABLE.asRuntimeException();
    assertThat(JobRunner.retryDelay(unavailable, 1, later)).hasSeconds(1);
    assertThat(JobRunner.retryDelay(new IllegalStateException("wrapped", unavailable), 3, later))
        .hasSeconds(4);
    assertThat(JobRunner.retryDelay(unavailable, 20, later)).hasSeconds(30);
    assertThat(JobRunner.retryDelay(Status.INVALID_ARGUMENT.asRuntimeException(), 1, later))
        .isNull();
    assertThat(JobRunner.retryDelay(Status.INTERNAL.asRuntimeException(), 1, later)).isNull();
    assertThat(JobRunner.retryDelay(unavailable, 1, System.nanoTime())).isNull();
  }
}
