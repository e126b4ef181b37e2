package dev.tenbin.index.server;

import dev.tenbin.index.collection.CollectionCatalog;
import dev.tenbin.index.collection.DataDirectoryRefusedException;
import dev.tenbin.index.config.IndexServiceConfig;
import dev.tenbin.index.grpc.IndexGrpcService;
import dev.tenbin.rpc.GrpcServerHost;
import dev.tenbin.rpc.ServerMain;
import dev.tenbin.rpc.ServerOptions;
import io.grpc.BindableService;
import io.micrometer.core.instrument.MeterRegistry;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** Runs the index service: {@code tenbin.index.v1} over gRPC, collections on local disk. */
@Command(
    name = "index-service",
    mixinStandardHelpOptions = true,
    description = "Serves BM25, dense, sparse and late-interaction search over gRPC.")
public final class IndexServer implements Callable<Integer>, AutoCloseable {
  @Mixin ServerOptions serverOptions = new ServerOptions();

  @Option(
      names = "--data-dir",
      defaultValue = "${env:TENBIN_INDEX_DATA_DIR:-.tenbin/index-data}",
      description =
          "Folder holding the collections (env TENBIN_INDEX_DATA_DIR; default ${DEFAULT-VALUE}). A missing or"
              + " empty folder is initialised; one with files the index service did not create is refused (exit 2).")
  Path dataDirectory;

  @Option(
      names = "--max-top-k",
      defaultValue = "${env:TENBIN_INDEX_MAX_TOP_K:-10000}",
      description = "Largest top_k a search may ask for (default ${DEFAULT-VALUE}).")
  int maxTopK;

  @Option(
      names = "--max-queries-per-request",
      defaultValue = "${env:TENBIN_INDEX_MAX_QUERIES:-10000}",
      description = "Largest number of queries in one search request (default ${DEFAULT-VALUE}).")
  int maxQueries;

  @Spec CommandSpec spec;

  private volatile Embedded running;

  public IndexServiceConfig config() {
    return new IndexServiceConfig(
        serverOptions.toSettings(IndexServiceConfig.DEFAULT_PORT),
        dataDirectory,
        maxTopK,
        maxQueries);
  }

  /** The service objects for a config, to host on any server (network or in-process). */
  public static List<BindableService> services(
      CollectionCatalog catalog, IndexServiceConfig config) {
    return List.of(new IndexGrpcService(catalog, config));
  }

  /** Starts the index service in-process (the orchestrator's embedded default). */
  public static Embedded startInProcess(String name, Path dataDirectory, MeterRegistry registry) {
    IndexServiceConfig config = IndexServiceConfig.embedded(dataDirectory);
    CollectionCatalog catalog = CollectionCatalog.open(dataDirectory);
    GrpcServerHost host =
        GrpcServerHost.startInProcessOwning(name, registry, catalog, c -> services(c, config));
    catalog.bindTo(host.registry());
    return new Embedded(catalog, host);
  }

  /**
   * Starts the network server of {@code config}; {@link DataDirectoryRefusedException} when the
   * data directory is not the index service's to use (nothing in it is changed then).
   */
  public static Embedded start(IndexServiceConfig config) {
    // Every option is checked before anything is created on disk.
    config.server().security().checkBind(config.server().host());
    CollectionCatalog catalog = CollectionCatalog.open(config.dataDirectory());
    GrpcServerHost host =
        GrpcServerHost.startOwning(config.server(), catalog, c -> services(c, config), true);
    catalog.bindTo(host.registry());
    return new Embedded(catalog, host);
  }

  /**
   * A started index service (network or in-process) and its catalog. The host owns the catalog:
   * closing stops the server (in-flight ingests commit or roll back), then closes the catalog.
   */
  public record Embedded(CollectionCatalog catalog, GrpcServerHost host) implements AutoCloseable {
    @Override
    public void close() {
      host.close();
      catalog.close();
    }
  }

  /**
   * Serves until stopped. Exits with 2, naming {@code --data-dir}, when the data directory is not
   * the index service's to use (see {@link CollectionCatalog#open}); nothing in it is changed then.
   */
  @Override
  public Integer call() throws Exception {
    dev.tenbin.rpc.ProcessLogging.use(serverOptions.logFormat());
    IndexServiceConfig config = config();
    Embedded running;
    try {
      running = start(config);
    } catch (DataDirectoryRefusedException refused) {
      spec.commandLine()
          .getErr()
          .println(
              "index-service: --data-dir "
                  + config.dataDirectory()
                  + " refused: "
                  + refused.getMessage());
      return 2;
    }
    try (running) {
      this.running = running;
      running.host().serveUntilShutdown("index-service", "data " + config.dataDirectory());
    }
    return 0;
  }

  @Override
  public void close() {
    if (running != null) {
      running.close();
    }
  }

  public static void main(String[] args) {
    ServerMain.exit("index-service", new IndexServer(), args);
  }
}
