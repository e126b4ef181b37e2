package dev.tenbin.eval.cli;

import dev.tenbin.eval.job.JobLauncher;
import dev.tenbin.eval.services.ServiceEndpoint;
import java.nio.file.Path;
import picocli.CommandLine.Option;

/** Where a job's services are (embedded unless an endpoint is given) and where caches live. */
public final class ServiceOptions {
  @Option(names = "--index-endpoint", paramLabel = "HOST:PORT", description = "Use a running index service instead of the embedded one.")
  String indexEndpoint;

  @Option(names = "--encoder-endpoint", paramLabel = "HOST:PORT", description = "Use a running encoder service instead of the embedded one.")
  String encoderEndpoint;

  @Option(names = "--rerank-endpoint", paramLabel = "HOST:PORT", description = "Use a running rerank service instead of the embedded one.")
  String rerankEndpoint;

  @Option(
      names = "--models-dir",
      defaultValue = "${env:TENBIN_MODELS_DIR:-models}",
      description = "Local models of the embedded services, <id>/card.json (default ${DEFAULT-VALUE}).")
  Path modelsDirectory;

  @Option(
      names = "--cache-dir",
      defaultValue = "${env:TENBIN_CACHE_DIR:-.tenbin/cache}",
      description = "Hub downloads, LightRetriever and embedding caches (default ${DEFAULT-VALUE}).")
  Path cacheDirectory;

  public JobLauncher.Options toOptions() {
    return new JobLauncher.Options(
        endpoint("--index-endpoint", indexEndpoint),
        endpoint("--encoder-endpoint", encoderEndpoint),
        endpoint("--rerank-endpoint", rerankEndpoint),
        modelsDirectory,
        cacheDirectory);
  }

  private static ServiceEndpoint endpoint(String field, String value) {
    return value == null ? null : ServiceEndpoint.parse(field, value);
  }
}
