package dev.tenbin.integration.job;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tenbin.eval.job.JobLauncher;
import dev.tenbin.eval.job.ServiceFolders;
import dev.tenbin.eval.server.EvalServer;
import dev.tenbin.eval.server.EvalServiceConfig;
import dev.tenbin.proto.eval.v1.EvalServiceGrpc;
import dev.tenbin.proto.eval.v1.ListJobsRequest;
import dev.tenbin.proto.eval.v1.SubmitJobRequest;
import dev.tenbin.proto.eval.v1.TaskSetDocument;
import dev.tenbin.rpc.ServerSettings;
import dev.tenbin.rpc.StatusMapper;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An eval service with its embedded services: a job naming a model its encoder (or rerank service)
 * does not know fails its SubmitJob call, naming the spec field, instead of failing when it runs.
 */
class SubmitModelsTest {
  private static final String TASKS =
      "name: b\ntasks:\n  - {name: t, language: en, source: {hub: owner/data, revision: main}}\n";

  @TempDir Path tmp;

  private static SubmitJobRequest request(String spec) {
    return SubmitJobRequest.newBuilder()
        .setSpecYaml("name: m\ntask_sets: [tasks.yaml]\n" + spec)
        .setOutputDir("m")
        .addTaskSets(TaskSetDocument.newBuilder().setName("tasks.yaml").setYaml(TASKS))
        .build();
  }

  @Test
  void aModelTheEmbeddedServicesDoNotKnowIsRefusedAtSubmitNamingTheField() {
    EvalServiceConfig config =
        new EvalServiceConfig(
            ServerSettings.ephemeral(),
            new ServiceFolders(tmp.resolve("state"), tmp.resolve("results"), List.of()),
            new JobLauncher.Options(null, null, null, tmp.resolve("models"), tmp.resolve("cache")));
    try (EvalServer.Running running = EvalServer.start(config)) {
      ManagedChannel channel =
          ManagedChannelBuilder.forAddress("127.0.0.1", running.host().port())
              .usePlaintext()
              .build();
      try {
        EvalServiceGrpc.EvalServiceBlockingStub stub =
            EvalServiceGrpc.newBlockingStub(channel).withDeadlineAfter(2, TimeUnit.MINUTES);
        assertThatThrownBy(
                () -> stub.submitJob(request("retrievers: [bm25, dense:no-such-model]\n")))
            .isInstanceOfSatisfying(
                StatusRuntimeException.class,
                e -> {
                  assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
                  assertThat(StatusMapper.violatedField(e)).isEqualTo("spec_yaml.retrievers[1]");
                  assertThat(e.getStatus().getDescription())
                      .contains("no-such-model")
                      .contains("bge-small-en-v1.5");
                });
        assertThatThrownBy(
                () ->
                    stub.submitJob(
                        request(
                            "rerankers: [no-such-cross-encoder]\n"
                                + "candidates: {dense_model: bge-small-en-v1.5}\n")))
            .isInstanceOfSatisfying(
                StatusRuntimeException.class,
                e -> {
                  assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
                  assertThat(StatusMapper.violatedField(e)).isEqualTo("spec_yaml.rerankers[0]");
                });
        assertThat(stub.listJobs(ListJobsRequest.getDefaultInstance()).getJobsList()).isEmpty();
      } finally {
        channel.shutdownNow();
      }
    }
  }
}
