package dev.tenbin.eval.job;

import dev.tenbin.model.onnx.ExecutionOptions;
import dev.tenbin.rpc.ClientSecurity;
import dev.tenbin.rpc.ServiceClientOptions;
import dev.tenbin.rpc.ServiceEndpoint;
import java.nio.file.Path;
import java.util.List;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Option;

/**
 * Where a job's services are (embedded unless an endpoint is given), how to reach them ({@code
 * --service-tls-ca}, {@code --service-auth-token-file}, ...), where caches live and what the
 * embedded encoder and reranker run on ({@code --execution-provider}, {@code --device-id}, {@code
 * --gpu-mem-limit}).
 */
public final class ServiceOptions {
  /**
   * The heading of these options in a command's help: a command declares them as
   * {@code @ArgGroup(validate = false, heading = ServiceOptions.HEADING)}, so they form sections of
   * their own after the command's everyday options.
   */
  public static final String HEADING =
      "%nServices (embedded unless an endpoint is given), models and caches:%n";

  @ArgGroup(validate = false, heading = "%nReaching remote services (TLS, tokens):%n")
  ServiceClientOptions security = new ServiceClientOptions();

  /** --execution-provider, --device-id, --gpu-mem-limit of the embedded encoder and reranker. */
  @ArgGroup(validate = false, heading = "%nWhat the embedded encoder and reranker run on:%n")
  ExecutionOptions execution = new ExecutionOptions();

  @Option(
      names = "--index-endpoint",
      paramLabel = "HOST:PORT",
      description = "Use a running index service instead of the embedded one.")
  String indexEndpoint;

  @Option(
      names = "--index-pods",
      paramLabel = "HOST:PORT",
      split = ",",
      description =
          "Use the index StatefulSet's pods, by their stable names"
              + " (tenbin-index-0.tenbin-index-headless:50052,...): each collection lives on one"
              + " pod, chosen by rendezvous hashing of its name (docs/scaling.md). Instead of"
              + " --index-endpoint.")
  List<String> indexPods;

  @Option(
      names = "--encoder-endpoint",
      paramLabel = "HOST:PORT",
      description =
          "Use a running encoder service instead of the embedded one; dns:///HOST:PORT spreads"
              + " calls over every address of HOST (a headless Service) with round_robin.")
  String encoderEndpoint;

  @Option(
      names = "--rerank-endpoint",
      paramLabel = "HOST:PORT",
      description =
          "Use a running rerank service instead of the embedded one; dns:///HOST:PORT spreads"
              + " calls over every address of HOST (a headless Service) with round_robin.")
  String rerankEndpoint;

  @Option(
      names = "--models-dir",
      paramLabel = "DIR",
      defaultValue = "${env:TENBIN_MODELS_DIR:-models}",
      description =
          "Local models of the embedded services, <id>/card.json (default ${DEFAULT-VALUE}).")
  Path modelsDirectory;

  @Option(
      names = "--cache-dir",
      paramLabel = "DIR",
      defaultValue = "${env:TENBIN_CACHE_DIR:-.tenbin/cache}",
      description =
          "Hub downloads, LightRetriever and embedding caches (default ${DEFAULT-VALUE}).")
  Path cacheDirectory;

  /** Whether the services are reached with a CA, client certificate or key file. */
  public boolean hasTlsFiles() {
    return security.hasTlsFiles();
  }

  /** Whether the services are reached with a token file. */
  public boolean hasTokenFile() {
    return security.hasTokenFile();
  }

  /**
   * The services' endpoints and how to reach them as given here, as the options of a shard's
   * process (a pod) that finds the same TLS and token files, by name, under {@code tlsDirectory}
   * and {@code tokenDirectory}.
   */
  public List<String> toShardArgs(Path tlsDirectory, Path tokenDirectory) {
    List<String> args = new java.util.ArrayList<>();
    if (indexEndpoint != null) {
      args.addAll(List.of("--index-endpoint", indexEndpoint));
    }
    if (indexPods != null) {
      args.addAll(List.of("--index-pods", String.join(",", indexPods)));
    }
    if (encoderEndpoint != null) {
      args.addAll(List.of("--encoder-endpoint", encoderEndpoint));
    }
    if (rerankEndpoint != null) {
      args.addAll(List.of("--rerank-endpoint", rerankEndpoint));
    }
    args.addAll(security.toArgs(tlsDirectory, tokenDirectory));
    return args;
  }

  public JobLauncher.Options toOptions() {
    ClientSecurity reach = security.toSecurity();
    ServiceEndpoint index =
        ServiceEndpoint.stateful("--index-endpoint", indexEndpoint, "--index-pods", indexPods);
    if (index != null) {
      index = index.withSecurity(reach);
    }
    return new JobLauncher.Options(
        index,
        endpoint("--encoder-endpoint", encoderEndpoint, reach),
        endpoint("--rerank-endpoint", rerankEndpoint, reach),
        modelsDirectory,
        cacheDirectory,
        checked(execution));
  }

  /** The execution options, checked now: CUDA on a build without it fails before any work. */
  private static ExecutionOptions checked(ExecutionOptions execution) {
    execution.check();
    return execution;
  }

  private static ServiceEndpoint endpoint(String field, String value, ClientSecurity reach) {
    return value == null ? null : ServiceEndpoint.parse(field, value).withSecurity(reach);
  }

  /**
   * Another encoder endpoint reached as these options reach theirs (TLS, token), e.g. {@code parity
   * --b-endpoint}; null when {@code value} is null.
   */
  public ServiceEndpoint encoderEndpoint(String field, String value) {
    return endpoint(field, value, security.toSecurity());
  }

  /** {@code --index-endpoint}, null when not given. */
  public String indexEndpoint() {
    return indexEndpoint;
  }

  /** {@code --encoder-endpoint}, null when not given. */
  public String encoderEndpoint() {
    return encoderEndpoint;
  }

  /** {@code --rerank-endpoint}, null when not given. */
  public String rerankEndpoint() {
    return rerankEndpoint;
  }
}
