package dev.tenbin.eval.cli;

import dev.tenbin.core.InvalidInputException;
import dev.tenbin.core.PreconditionException;
import dev.tenbin.eval.job.JobLauncher;
import dev.tenbin.eval.job.JobSpec;
import dev.tenbin.eval.job.ServiceOptions;
import dev.tenbin.eval.plan.Work;
import dev.tenbin.eval.shard.Shard;
import dev.tenbin.eval.shard.kubernetes.IndexedJobSettings;
import dev.tenbin.eval.shard.kubernetes.KubernetesExecutor;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.apis.BatchV1Api;
import io.kubernetes.client.util.Config;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import picocli.CommandLine.Option;

/**
 * The options of {@code tenbin run --executor kubernetes}: where the Indexed Job goes, what its
 * pods run and mount, and how this process reaches the API server. The job folder ({@code --out})
 * must lie on the shared results volume, mounted here under {@code --results-root} and in the pods
 * under {@code --pod-results-dir}; so must the spec, its task sets and local datasets.
 */
public final class KubernetesOptions {
  @Option(
      names = "--namespace",
      paramLabel = "NS",
      defaultValue = "${env:TENBIN_NAMESPACE:-default}",
      description =
          "The namespace of the Indexed Job (env TENBIN_NAMESPACE; default ${DEFAULT-VALUE}).")
  String namespace;

  @Option(
      names = "--image",
      paramLabel = "IMAGE",
      description = "The Tenbin image of the pods (the same build as this one; k8s/README.md).")
  String image;

  @Option(
      names = "--results-pvc",
      paramLabel = "CLAIM",
      description =
          "The ReadWriteMany PersistentVolumeClaim holding the job folder, the spec and its data.")
  String resultsPvc;

  @Option(
      names = "--results-root",
      paramLabel = "DIR",
      description = "Where that volume is mounted on this machine (default: the parent of --out).")
  Path resultsRoot;

  @Option(
      names = "--pod-results-dir",
      paramLabel = "DIR",
      defaultValue = "/results",
      description = "Where the pods mount it (default ${DEFAULT-VALUE}).")
  String podResultsDir;

  @Option(
      names = "--pod-spec",
      paramLabel = "PATH",
      description =
          "The spec's path in the pods (default: SPEC's place under --results-root, in"
              + " --pod-results-dir).")
  String podSpec;

  @Option(
      names = "--job-name",
      paramLabel = "NAME",
      description = "The Job's name (default tenbin-<spec name>-<random>).")
  String jobName;

  @Option(
      names = "--ttl-seconds",
      defaultValue = "86400",
      paramLabel = "N",
      description =
          "TtlSecondsAfterFinished, how long the finished Job and its pods stay (default ${DEFAULT-VALUE}).")
  int ttlSeconds;

  @Option(
      names = "--pod-resource",
      paramLabel = "RESOURCE",
      description =
          "NAME=QUANTITY, a request and limit of each pod, e.g. cpu=4, memory=16Gi, nvidia.com/gpu=1 (repeatable).")
  Map<String, String> podResources = new LinkedHashMap<>();

  @Option(
      names = "--service-account",
      paramLabel = "NAME",
      defaultValue = "",
      description = "The pods' service account (default: the namespace's).")
  String serviceAccount;

  @Option(
      names = "--pod-hub-secret",
      paramLabel = "SECRET",
      defaultValue = "",
      description =
          "A Secret whose key 'token' becomes the pods' HF_TOKEN (hub task sets, gated"
              + " datasets); the token never goes into the Job itself.")
  String podHubSecret;

  @Option(
      names = "--pod-hub-endpoint",
      paramLabel = "URL",
      defaultValue = "${env:HF_ENDPOINT:-}",
      description = "The pods' HF_ENDPOINT, a hub mirror (default: this process's HF_ENDPOINT).")
  String podHubEndpoint;

  @Option(
      names = "--kubeconfig",
      paramLabel = "FILE",
      description =
          "The kubeconfig to use (default: $KUBECONFIG, ~/.kube/config, or the pod's service account).")
  Path kubeconfig;

  @Option(
      names = "--poll-seconds",
      defaultValue = "5",
      paramLabel = "S",
      description = "How often the Job's status is read (default ${DEFAULT-VALUE}).")
  double pollSeconds;

  /** Plans the job here, runs it as an Indexed Job, merges here when every index succeeded. */
  int run(RunCommand command, JobSpec job, JobLauncher launcher, PrintWriter err) {
    RunCommand.check(image != null, "--image", "is required with --executor kubernetes");
    RunCommand.check(resultsPvc != null, "--results-pvc", "is required with --executor kubernetes");
    RunCommand.check(command.parallelism() >= 1, "--parallelism", "must be at least 1");
    IndexedJobSettings settings = settings(command, job);
    List<Work> plan = launcher.plan(job);
    command.describe(plan, err);
    KubernetesExecutor executor =
        new KubernetesExecutor(
            new BatchV1Api(client()),
            settings,
            err,
            Duration.ofMillis((long) (pollSeconds * 1000)));
    AtomicBoolean finished = new AtomicBoolean();
    Thread cancelOnExit =
        new Thread(
            () -> {
              if (!finished.get()) {
                executor.cancel();
              }
            },
            "tenbin-kubernetes-cancel");
    Runtime.getRuntime().addShutdownHook(cancelOnExit);
    KubernetesExecutor.Result result;
    try {
      result = executor.run(dev.tenbin.core.Cancellation.NEVER);
    } finally {
      finished.set(true);
      try {
        Runtime.getRuntime().removeShutdownHook(cancelOnExit);
      } catch (IllegalStateException shuttingDown) {
        // The hook runs.
      }
    }
    if (result.state() != KubernetesExecutor.State.SUCCEEDED) {
      err.println(
          "tenbin: not merged: the Job "
              + result.state().name().toLowerCase(Locale.ROOT)
              + (result.failed().isEmpty() ? "" : "; failed shards " + result.failed())
              + (result.message().isEmpty() ? "" : " (" + result.message() + ")")
              + "; rerun to compute only the missing cells");
      err.flush();
      return RunCommand.EXIT_INCOMPLETE;
    }
    for (int i = 0; i < settings.shards(); i++) {
      Shard shard = new Shard(i, settings.shards());
      err.println("tenbin: shard " + shard.label() + ": " + command.counts(shard));
    }
    return command.merge(plan, err);
  }

  /** The Job of this command line. */
  IndexedJobSettings settings(RunCommand command, JobSpec job) {
    Path out = command.out().toAbsolutePath().normalize();
    Path root = (resultsRoot == null ? out.getParent() : resultsRoot.toAbsolutePath()).normalize();
    List<String> args = new ArrayList<>();
    args.add(podSpec != null ? podSpec : inPod(root, command.specFile(), "--pod-spec"));
    args.add("--out");
    args.add(inPod(root, out, "--results-root"));
    args.add("--progress");
    args.add("lines");
    ServiceOptions services = command.services();
    addIfSet(args, "--index-endpoint", services.indexEndpoint());
    addIfSet(args, "--encoder-endpoint", services.encoderEndpoint());
    addIfSet(args, "--rerank-endpoint", services.rerankEndpoint());
    args.addAll(command.podArgs());
    return new IndexedJobSettings(
        namespace,
        jobName != null ? jobName : defaultName(job.name()),
        image,
        command.parallelism(),
        command.parallelism(),
        command.retries(),
        ttlSeconds,
        resultsPvc,
        podResultsDir,
        args,
        podResources,
        serviceAccount,
        Map.of(),
        List.of(),
        new IndexedJobSettings.PodHub(podHubSecret, podHubEndpoint));
  }

  /** {@code path} as the pods see it: its place under {@code root}, under --pod-results-dir. */
  private String inPod(Path root, Path path, String field) {
    Path absolute = path.toAbsolutePath().normalize();
    if (!absolute.startsWith(root)) {
      throw new PreconditionException(
          field,
          absolute
              + " is not on the shared results volume (mounted here at "
              + root
              + "); put it there, or pass --results-root / --pod-spec");
    }
    String relative = root.relativize(absolute).toString().replace('\\', '/');
    String base = podResultsDir.endsWith("/") ? podResultsDir : podResultsDir + "/";
    return relative.isEmpty() ? podResultsDir : base + relative;
  }

  private static void addIfSet(List<String> args, String name, String value) {
    if (value != null) {
      args.add(name);
      args.add(value);
    }
  }

  /** tenbin-<spec name as a DNS label>-<5 random characters>, at most 63 characters. */
  static String defaultName(String specName) {
    String label = specName.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9-]+", "-");
    label = label.replaceAll("^-+|-+$", "");
    if (label.length() > 40) {
      label = label.substring(0, 40).replaceAll("-+$", "");
    }
    String suffix =
        Integer.toString(ThreadLocalRandom.current().nextInt(36 * 36 * 36 * 36 * 36), 36);
    return "tenbin-" + (label.isEmpty() ? "run" : label) + "-" + suffix;
  }

  private ApiClient client() {
    try {
      return kubeconfig != null ? Config.fromConfig(kubeconfig.toString()) : Config.defaultClient();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the Kubernetes client configuration", e);
    } catch (RuntimeException e) {
      throw new InvalidInputException(
          "--kubeconfig", "cannot configure the Kubernetes client: " + e.getMessage());
    }
  }
}
