package dev.tenbin.eval.job;

import dev.tenbin.client.encoder.EncoderClient;
import dev.tenbin.client.index.IndexClient;
import dev.tenbin.client.rerank.RerankClient;
import dev.tenbin.core.Cancellation;
import dev.tenbin.eval.cache.CacheKey;
import dev.tenbin.eval.plan.JobTask;
import dev.tenbin.eval.plan.ModelFacts;
import dev.tenbin.eval.plan.Work;
import dev.tenbin.eval.provenance.Probes;
import dev.tenbin.eval.services.IndexLanguage;
import dev.tenbin.eval.services.Services;
import dev.tenbin.eval.taskset.HubDatasetClient;
import dev.tenbin.eval.taskset.LoadedTask;
import dev.tenbin.eval.taskset.TaskLoader;
import dev.tenbin.eval.taskset.TaskSetParser;
import dev.tenbin.eval.taskset.TaskSetSpec;
import dev.tenbin.eval.taskset.TaskSpec;
import dev.tenbin.model.onnx.ExecutionOptions;
import dev.tenbin.proto.common.v1.RuntimeProvenance;
import dev.tenbin.proto.encoder.v1.GetModelInfoResponse;
import dev.tenbin.proto.encoder.v1.ModelCard;
import dev.tenbin.proto.rerank.v1.RerankerInfo;
import dev.tenbin.rpc.ServiceEndpoint;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * Everything {@code tenbin run} and the eval service do for a job: read the spec, load its tasks
 * (downloading hub datasets at their pinned revisions), connect to the services (embedded or
 * remote), ask the encoder for each model's identity, plan the fingerprinted cells and run them.
 */
public final class JobLauncher {
  private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(JobLauncher.class);

  /**
   * Where the services are and where caches live.
   *
   * @param index remote index service, or null for the embedded one
   * @param encoder remote encoder service, or null for the embedded one
   * @param rerank remote rerank service, or null for the embedded one
   * @param modelsDirectory local models of the embedded services
   * @param cacheDirectory hub downloads (models and datasets), LightRetriever and embedding caches
   * @param execution execution provider, device and arena limit of the embedded encoder and rerank
   *     service
   */
  public record Options(
      ServiceEndpoint index,
      ServiceEndpoint encoder,
      ServiceEndpoint rerank,
      Path modelsDirectory,
      Path cacheDirectory,
      ExecutionOptions execution) {
    public Options {
      execution = execution == null ? ExecutionOptions.cpu() : execution;
    }

    /** Embedded services on the CPU. */
    public Options(
        ServiceEndpoint index,
        ServiceEndpoint encoder,
        ServiceEndpoint rerank,
        Path modelsDirectory,
        Path cacheDirectory) {
      this(index, encoder, rerank, modelsDirectory, cacheDirectory, null);
    }

    /**
     * The index and encoder services (embedded ones start in-process) with this execution; the
     * rerank endpoint is the caller's to add where it reranks.
     */
    public Services connect() {
      return Services.connect(index, encoder, modelsDirectory, cacheDirectory)
          .withExecution(execution);
    }
  }

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
      return loadTasks(spec, readTaskSets(spec), services.index());
    }
  }

  /**
   * Loads every task of {@code taskSets} that {@code spec} selects; the index service {@code index}
   * calls resolves each task's language.
   */
  public List<JobTask> loadTasks(JobSpec spec, List<TaskSetSpec> taskSets, IndexClient index) {
    TaskLoader loader =
        new TaskLoader(
            options.cacheDirectory(), HubDatasetClient.fromEnvironment(options.cacheDirectory()));
    List<JobTask> tasks = new ArrayList<>();
    java.util.Map<String, LoadedTask> loaded = new java.util.HashMap<>();
    for (TaskSelection.Selected selected : TaskSelection.select(spec, taskSets)) {
      TaskSetSpec taskSet = selected.taskSet();
      LoadedTask task =
          loaded.computeIfAbsent(
              taskSet.name() + "/" + selected.task().name(),
              key -> loader.load(taskSet, selected.task()));
      JobTask.LengthSource lengths = null;
      String reference = selected.task().lengthReference();
      if (reference != null) {
        TaskSpec referenceTask =
            taskSet.tasks().stream()
                .filter(t -> t.name().equals(reference))
                .findFirst()
                .orElseThrow();
        LoadedTask source =
            loaded.computeIfAbsent(
                taskSet.name() + "/" + reference, key -> loader.load(taskSet, referenceTask));
        lengths = new JobTask.LengthSource(reference, source.dataset(), source.datasetSha());
      }
      tasks.add(toJobTask(taskSet, task, index, lengths));
    }
    return tasks;
  }

  private static JobTask toJobTask(
      TaskSetSpec taskSet,
      LoadedTask loaded,
      IndexClient index,
      JobTask.LengthSource lengthSource) {
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
        loaded.provenance(),
        lengthSource);
  }

  /** Connects to the configured services (embedded ones start in-process). */
  public Services connect() {
    Services services = options.connect();
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

  /**
   * Plans the job for a run into {@code directory}. When the folder already holds every cell and
   * candidate set of the plan (a warm rerun), the plan is made without the probe checksums: they
   * are stored only with cells computed now, and encoding or scoring them would load every model of
   * the job for nothing (the encoder and the rerank service answer a model's identity from their
   * cache folders without loading it). Otherwise it is {@link #plan}. The fingerprints are the same
   * either way: the probes are not part of them.
   */
  List<Work> planRun(JobSpec spec, List<JobTask> tasks, Services services, Path directory) {
    if (Files.isDirectory(directory.resolve("cells"))) {
      List<Work> identities =
          new JobPlanner(
                  spec,
                  id -> encoderFacts(services, id, Probes.Checksum.NOT_TAKEN),
                  id -> rerankerFacts(services, id, Probes.Checksum.NOT_TAKEN))
              .plan(tasks);
      if (JobRunner.holdsEverything(directory, identities)) {
        return identities;
      }
    }
    return plan(spec, tasks, services);
  }

  /** Loads, plans and runs a local job into {@code directory}, reading its task set files. */
  public JobOutcome run(
      JobSpec spec, Path directory, JobListener listener, Cancellation cancellation) {
    return run(spec, readTaskSets(spec), directory, listener, cancellation);
  }

  /**
   * Loads, plans and runs the {@code slice} of a local job (e.g. one shard) into {@code directory},
   * reading its task set files.
   */
  public JobOutcome run(
      JobSpec spec,
      Path directory,
      JobListener listener,
      Cancellation cancellation,
      PlanSlice slice) {
    return run(spec, readTaskSets(spec), directory, listener, cancellation, slice);
  }

  /**
   * Loads and plans a local job without running it: every work item with its cells' fingerprints
   * (the services start, each model is asked for its identity once).
   */
  public List<Work> plan(JobSpec spec) {
    try (Services services = connect()) {
      return plan(spec, loadTasks(spec, readTaskSets(spec), services.index()), services);
    }
  }

  /** Loads and plans a job whose task sets are already read and checked, without running it. */
  public List<Work> plan(JobSpec spec, List<TaskSetSpec> taskSets) {
    try (Services services = connect()) {
      return plan(spec, loadTasks(spec, taskSets, services.index()), services);
    }
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
    return run(spec, taskSets, directory, listener, cancellation, PlanSlice.WHOLE);
  }

  private JobOutcome run(
      JobSpec spec,
      List<TaskSetSpec> taskSets,
      Path directory,
      JobListener listener,
      Cancellation cancellation,
      PlanSlice slice) {
    try (Services services = connect();
        var cache = EmbeddingCaches.open(options.cacheDirectory());
        var sharing = services.shareEmbeddings(cache)) {
      // Planning asks the services too (a task's language, each model's identity): a service
      // restarting meanwhile is waited for as a work item waits for it, not a failed job.
      List<Work> plan =
          JobRunner.waitingForServices(
              () -> planRun(spec, loadTasks(spec, taskSets, services.index()), services, directory),
              JobRunner.DEFAULT_SERVICE_RETRY,
              cancellation,
              (attempt, reason) ->
                  log.warn(
                      "planning: a service is unavailable ({}); trying again (attempt {})",
                      reason,
                      attempt + 1));
      if (plan == null) {
        return JobOutcome.cancelledBeforeStart();
      }
      return new JobRunner(
              services,
              directory,
              listener,
              cancellation,
              EmbeddingCaches.hook(cache, new LightCaches(services::encoder)))
          .run(spec, plan, slice);
    }
  }

  /**
   * Facts of an encoder model as the encoder reports them, with the checksum of the probe texts
   * encoded once now (every cell of the model stores it).
   */
  public static ModelFacts encoderFacts(Services services, String modelId) {
    EncoderClient client = services.encoder();
    GetModelInfoResponse info = client.modelInfo(modelId);
    return encoderFacts(info, Probes.encode(client, modelId, info.getCard().getOutputKind()));
  }

  /** Facts of an encoder model as the encoder reports them, with the given probe checksum. */
  static ModelFacts encoderFacts(Services services, String modelId, Probes.Checksum probes) {
    return encoderFacts(services.encoder().modelInfo(modelId), probes);
  }

  /**
   * The facts of an encoder model: its card and the provenance of its outputs (execution provider,
   * device, ONNX Runtime release, model files hash) identify its cells; the probe checksum is
   * stored with them.
   */
  static ModelFacts encoderFacts(GetModelInfoResponse info, Probes.Checksum probes) {
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
    // The width the model really outputs (read from its graph at load): cells computed when a
    // card cut a wider output are not reused for the full one.
    identity.put("dimension", Integer.toString(card.getDimension()));
    // A model the encoder found batch-dependent is encoded one text per pass: its cells are not
    // those computed when it shared passes. Batched, the policy every cell had before the encoder
    // probed, adds nothing, so the cells of batch-invariant models keep their fingerprints.
    String policy = CacheKey.encodingPolicy(info);
    if (!policy.equals(CacheKey.BATCHED)) {
      identity.put("encoding_policy", policy);
    }
    Map<String, String> versions = new LinkedHashMap<>();
    versions.put("model_revision", card.getRevision());
    if (!card.getResolvedSha().isEmpty()) {
      versions.put("model_resolved_sha", card.getResolvedSha());
    }
    versions.put("model_source", card.getSource());
    versions.put("model_dtype", card.getDtype());
    versions.put("onnxruntime_provider", info.getExecutionProvider());
    versions.put("encoding_policy", policy);
    addProvenance(info.hasProvenance() ? info.getProvenance() : null, probes, identity, versions);
    return new ModelFacts(
        identity,
        versions,
        card.getDimension(),
        card.getTotalParameters(),
        List.copyOf(card.getMatryoshkaDimensionsList()));
  }

  /**
   * Facts of a cross-encoder as the rerank service reports them, with the checksum of the probe
   * texts scored once now.
   */
  static ModelFacts rerankerFacts(Services services, String rerankerId) {
    RerankClient rerank = rerankClient(services);
    return rerankerFacts(rerank.rerankerInfo(rerankerId), Probes.rerank(rerank, rerankerId));
  }

  /**
   * Facts of a cross-encoder as the rerank service reports them, with the given probe checksum (the
   * service answers a cross-encoder's identity from its cache folder without loading it).
   */
  static ModelFacts rerankerFacts(Services services, String rerankerId, Probes.Checksum probes) {
    return rerankerFacts(rerankClient(services).rerankerInfo(rerankerId), probes);
  }

  private static RerankClient rerankClient(Services services) {
    return services.reranker().withDeadline(Duration.ofMinutes(10));
  }

  /** The facts of a cross-encoder: card and provenance identify its cells, probes are stored. */
  static ModelFacts rerankerFacts(RerankerInfo info, Probes.Checksum probes) {
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
    if (info.hasProvenance()) {
      versions.put("onnxruntime_provider", info.getProvenance().getExecutionProvider());
    }
    addProvenance(info.hasProvenance() ? info.getProvenance() : null, probes, identity, versions);
    return new ModelFacts(identity, versions, 0, 0, List.of());
  }

  /**
   * Adds what a service reports of where a model runs: provider, device, ONNX Runtime release and
   * model files hash to the identity (so a CPU cell is never reused for CUDA, nor a cell of other
   * files under the same revision) and to the stored versions; the probe checksum to the versions
   * only (it checks a run, it does not name one). A service that reports no provenance (an older
   * release) adds nothing.
   */
  private static void addProvenance(
      RuntimeProvenance provenance,
      Probes.Checksum probes,
      Map<String, String> identity,
      Map<String, String> versions) {
    if (provenance != null) {
      identity.put("execution_provider", provenance.getExecutionProvider());
      identity.put("device", provenance.getDevice());
      identity.put("onnxruntime_version", provenance.getOnnxruntimeVersion());
      identity.put("model_sha256", provenance.getModelSha256());
      versions.put("onnxruntime_device", provenance.getDevice());
      versions.put("onnxruntime_device_id", Integer.toString(provenance.getDeviceId()));
      versions.put("onnxruntime_version", provenance.getOnnxruntimeVersion());
      versions.put("model_sha256", provenance.getModelSha256());
    }
    versions.putAll(probes.versions());
  }
}
