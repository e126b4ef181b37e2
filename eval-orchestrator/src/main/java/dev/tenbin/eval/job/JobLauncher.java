package dev.tenbin.eval.job;

import dev.tenbin.core.Cancellation;
import dev.tenbin.encoder.client.EncoderClient;
import dev.tenbin.eval.services.IndexLanguage;
import dev.tenbin.eval.services.ServiceEndpoint;
import dev.tenbin.eval.services.Services;
import dev.tenbin.eval.taskset.HubDatasetClient;
import dev.tenbin.eval.taskset.LoadedTask;
import dev.tenbin.eval.taskset.TaskLoader;
import dev.tenbin.eval.taskset.TaskSetParser;
import dev.tenbin.eval.taskset.TaskSetSpec;
import dev.tenbin.eval.taskset.TaskSpec;
import dev.tenbin.proto.encoder.v1.GetModelInfoResponse;
import dev.tenbin.proto.encoder.v1.ModelCard;
import dev.tenbin.proto.rerank.v1.GetRerankerInfoRequest;
import dev.tenbin.proto.rerank.v1.RerankServiceGrpc;
import dev.tenbin.proto.rerank.v1.RerankerInfo;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

/**
 * Everything {@code tenbin run} and the eval service do for a job: read the spec, load its tasks
 * (downloading hub datasets at their pinned revisions), connect to the services (embedded or
 * remote), ask the encoder for each model's identity, plan the fingerprinted cells and run them.
 */
public final class JobLauncher {
  /**
   * Where the services are and where caches live.
   *
   * @param index remote index service, or null for the embedded one
   * @param encoder remote encoder service, or null for the embedded one
   * @param rerank remote rerank service, or null for the embedded one
   * @param modelsDirectory local models of the embedded services
   * @param cacheDirectory hub downloads (models and datasets), LightRetriever and embedding caches
   */
  public record Options(
      ServiceEndpoint index,
      ServiceEndpoint encoder,
      ServiceEndpoint rerank,
      Path modelsDirectory,
      Path cacheDirectory) {}

  private final Options options;

  public JobLauncher(Options options) {
    this.options = options;
  }

  /**
   * Reads the task set files a local spec names ({@code tenbin run}; the eval service never does).
   */
  public List<TaskSetSpec> readTaskSets(JobSpec spec) {
    TaskSetParser parser = new TaskSetParser();
    return spec.taskSets().stream().map(parser::parse).toList();
  }

  /** Reads the spec's task sets and loads every selected task. */
  public List<JobTask> loadTasks(JobSpec spec) {
    try (Services services = connect()) {
      return loadTasks(spec, readTaskSets(spec), services.indexChannel());
    }
  }

  /**
   * Loads every task of {@code taskSets} that {@code spec} selects; the index behind {@code index}
   * resolves each task's language.
   */
  public List<JobTask> loadTasks(JobSpec spec, List<TaskSetSpec> taskSets, io.grpc.Channel index) {
    TaskLoader loader =
        new TaskLoader(
            options.cacheDirectory(), HubDatasetClient.fromEnvironment(options.cacheDirectory()));
    List<JobTask> tasks = new ArrayList<>();
    for (TaskSelection.Selected selected : TaskSelection.select(spec, taskSets)) {
      tasks.add(
          toJobTask(selected.taskSet(), loader.load(selected.taskSet(), selected.task()), index));
    }
    return tasks;
  }

  private static JobTask toJobTask(TaskSetSpec taskSet, LoadedTask loaded, io.grpc.Channel index) {
    TaskSpec task = loaded.task();
    String language =
        IndexLanguage.resolve(
                index,
                task.detectsLanguage() ? null : Objects.requireNonNullElse(task.language(), ""),
                loaded.dataset()::textSample)
            .code();
    return new JobTask(
        taskSet.name(),
        task.dataset(),
        task.name(),
        language,
        task.domain(),
        loaded.dataset(),
        loaded.datasetSha(),
        loaded.provenance());
  }

  /** Connects to the configured services (embedded ones start in-process). */
  public Services connect() {
    Services services =
        Services.connect(
            options.index(),
            options.encoder(),
            options.modelsDirectory(),
            options.cacheDirectory());
    if (options.rerank() != null) {
      services.withRerankEndpoint(options.rerank());
    }
    return services;
  }

  /** Plans the job: every cell with its fingerprint. */
  public List<Work> plan(JobSpec spec, List<JobTask> tasks, Services services) {
    return new JobPlanner(spec, id -> encoderFacts(services, id), id -> rerankerFacts(services, id))
        .plan(tasks);
  }

  /** Loads, plans and runs a local job into {@code directory}, reading its task set files. */
  public JobOutcome run(
      JobSpec spec, Path directory, JobListener listener, Cancellation cancellation) {
    return run(spec, readTaskSets(spec), directory, listener, cancellation);
  }

  /**
   * Loads, plans and runs a job whose task sets are already read and checked into {@code
   * directory}.
   */
  public JobOutcome run(
      JobSpec spec,
      List<TaskSetSpec> taskSets,
      Path directory,
      JobListener listener,
      Cancellation cancellation) {
    try (Services services = connect();
        var cache = EmbeddingCaches.open(options.cacheDirectory());
        var sharing = services.shareEmbeddings(cache)) {
      List<JobTask> tasks = loadTasks(spec, taskSets, services.indexChannel());
      List<Work> plan = plan(spec, tasks, services);
      return new JobRunner(
              services,
              directory,
              listener,
              cancellation,
              EmbeddingCaches.hook(cache, new LightCaches(services::encoderChannel)::ensure))
          .run(spec, plan);
    }
  }

  static ModelFacts encoderFacts(Services services, String modelId) {
    GetModelInfoResponse info = EncoderClient.of(services.encoderChannel()).modelInfo(modelId);
    ModelCard card = info.getCard();
    Map<String, String> identity = new TreeMap<>();
    identity.put("id", card.getId());
    identity.put("revision", card.getRevision());
    identity.put("resolved_sha", card.getResolvedSha());
    identity.put("dtype", card.getDtype());
    identity.put("pooling", card.getPooling().name());
    identity.put("normalize", Boolean.toString(card.getNormalize()));
    identity.put("max_length", Integer.toString(card.getMaxLength()));
    identity.put("query_prompt", card.getQueryPrompt());
    identity.put("document_prompt", card.getDocumentPrompt());
    identity.put("output_kind", card.getOutputKind().name());
    Map<String, String> versions = new LinkedHashMap<>();
    versions.put("model_revision", card.getRevision());
    if (!card.getResolvedSha().isEmpty()) {
      versions.put("model_resolved_sha", card.getResolvedSha());
    }
    versions.put("model_source", card.getSource());
    versions.put("model_dtype", card.getDtype());
    versions.put("onnxruntime_provider", info.getExecutionProvider());
    return new ModelFacts(
        identity,
        versions,
        card.getDimension(),
        card.getTotalParameters(),
        List.copyOf(card.getMatryoshkaDimensionsList()));
  }

  static ModelFacts rerankerFacts(Services services, String rerankerId) {
    RerankerInfo info =
        RerankServiceGrpc.newBlockingStub(services.rerankChannel())
            .withDeadlineAfter(10, TimeUnit.MINUTES)
            .getRerankerInfo(GetRerankerInfoRequest.newBuilder().setModelId(rerankerId).build())
            .getInfo();
    Map<String, String> identity = new TreeMap<>();
    identity.put("id", info.getId());
    identity.put("revision", info.getRevision());
    identity.put("dtype", info.getDtype());
    identity.put("head", info.getHead().name());
    identity.put("max_length", Integer.toString(info.getMaxLength()));
    identity.put("prompt_template", info.getPromptTemplate());
    Map<String, String> versions = new LinkedHashMap<>();
    versions.put("model_revision", info.getRevision());
    versions.put("model_source", info.getSource());
    versions.put("model_dtype", info.getDtype());
    return new ModelFacts(identity, versions, 0, 0, List.of());
  }
}
