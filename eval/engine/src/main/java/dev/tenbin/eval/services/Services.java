package dev.tenbin.eval.services;

import dev.tenbin.client.encoder.EncoderClient;
import dev.tenbin.client.index.IndexClient;
import dev.tenbin.client.rerank.RerankClient;
import dev.tenbin.core.OrderedShutdown;
import dev.tenbin.eval.cache.CachedEncoder;
import dev.tenbin.eval.cache.EmbeddingCache;
import dev.tenbin.model.onnx.ExecutionOptions;
import dev.tenbin.rpc.ClientChannels;
import dev.tenbin.rpc.ServiceEndpoint;
import io.grpc.ManagedChannel;
import io.grpc.inprocess.InProcessChannelBuilder;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

/**
 * The services an evaluation talks to. By default each one is started in this process (the embedded
 * default) and reached over gRPC's in-process transport; an endpoint option points the orchestrator
 * at a running service instead. Either way every call goes through the v1 contract. A remote
 * encoder or rerank service given as {@code dns:///name:port} has its calls spread over its
 * replicas; an index given as several pods has each collection on one of them ({@link
 * IndexPlacement}).
 *
 * <p>Callers get ready clients ({@link #index()}, {@link #encoder()}, {@link #reranker()}), each
 * with its default deadline and retries; the channels behind them are this object's, closed with
 * it.
 */
public final class Services implements AutoCloseable {
  private static final int MAX_MESSAGE_BYTES = 256 * 1024 * 1024;

  private final ManagedChannel indexChannel;
  private final IndexClient index;
  private final String indexDescription;
  private final java.util.function.Supplier<ManagedChannel> encoderFactory;
  private ManagedChannel encoderChannel;
  private EncoderClient encoder;
  private final String encoderDescription;
  private ServiceEndpoint encoderEndpoint;
  private final List<AutoCloseable> owned = new ArrayList<>();
  private ServiceEndpoint rerankEndpoint;
  private Path cacheDirectory;
  private Path modelsDirectory;
  private ManagedChannel rerankChannel;
  private RerankClient reranker;
  private ExecutionOptions execution = ExecutionOptions.cpu();

  /** The job's embedding cache the embedded rerank service encodes through, while one is shared. */
  private EmbeddingCache sharedCache;

  private CachedEncoder sharedEncoder;

  private Services(
      ManagedChannel indexChannel,
      String indexDescription,
      java.util.function.Supplier<ManagedChannel> encoderFactory,
      String encoderDescription,
      List<AutoCloseable> owned) {
    this.indexChannel = indexChannel;
    this.index = IndexClient.of(indexChannel);
    this.indexDescription = indexDescription;
    this.encoderFactory = encoderFactory;
    this.encoderDescription = encoderDescription;
    this.owned.addAll(owned);
  }

  /** Connects to the index service only (embedded when {@code indexEndpoint} is null). */
  public static Services connect(ServiceEndpoint indexEndpoint) {
    return connect(
        indexEndpoint, null, Path.of(System.getProperty("user.home"), ".tenbin", "cache"));
  }

  /**
   * Connects to the given endpoints; each one that is null is started in-process, the encoder only
   * when first asked for.
   */
  public static Services connect(
      ServiceEndpoint indexEndpoint, ServiceEndpoint encoderEndpoint, Path cacheDirectory) {
    return connect(indexEndpoint, encoderEndpoint, Path.of("models"), cacheDirectory);
  }

  /** As above, with the embedded services' local models folder. */
  public static Services connect(
      ServiceEndpoint indexEndpoint,
      ServiceEndpoint encoderEndpoint,
      Path modelsDirectory,
      Path cacheDirectory) {
    List<AutoCloseable> owned = new ArrayList<>();
    ManagedChannel index;
    String indexDescription;
    if (indexEndpoint != null && indexEndpoint.placed()) {
      index = IndexPlacement.open(indexEndpoint, MAX_MESSAGE_BYTES);
      indexDescription =
          "remote, "
              + indexEndpoint.targets().size()
              + " pods each holding its own collections ("
              + indexEndpoint
              + ")";
    } else if (indexEndpoint != null) {
      index = remote(indexEndpoint);
      indexDescription = "remote " + indexEndpoint;
    } else {
      Path temporary = createTempDirectory();
      // The index's own data directory, beside the owner file (it must start empty).
      Path dataDirectory = temporary.resolve("index");
      // Removed when the services close, or when the process is stopped (SIGTERM, ^C), after
      // the embedded index has stopped; a folder left by a killed process goes at the next start.
      OrderedShutdown.Registration removal =
          OrderedShutdown.register(
              OrderedShutdown.Stage.FILES,
              "embedded index folder",
              () -> deleteRecursively(temporary));
      String name = "tenbin-index-" + UUID.randomUUID();
      owned.add(EmbeddedServices.require("--index-endpoint").startIndex(name, dataDirectory));
      owned.add(
          () -> {
            removal.close();
            deleteRecursively(temporary);
          });
      index =
          InProcessChannelBuilder.forName(name).maxInboundMessageSize(MAX_MESSAGE_BYTES).build();
      indexDescription = "embedded (in-process)";
    }
    Services[] self = new Services[1];
    java.util.function.Supplier<ManagedChannel> encoder;
    String encoderDescription;
    if (encoderEndpoint != null) {
      encoder = () -> remote(encoderEndpoint);
      encoderDescription = "remote " + encoderEndpoint;
    } else {
      encoder =
          () -> {
            String name = "tenbin-encoder-" + UUID.randomUUID();
            self[0].owned.add(
                0,
                EmbeddedServices.require("--encoder-endpoint")
                    .startEncoder(name, modelsDirectory, cacheDirectory, self[0].execution));
            return InProcessChannelBuilder.forName(name)
                .maxInboundMessageSize(MAX_MESSAGE_BYTES)
                .build();
          };
      encoderDescription = "embedded (in-process)";
    }
    self[0] = new Services(index, indexDescription, encoder, encoderDescription, owned);
    self[0].cacheDirectory = cacheDirectory;
    self[0].encoderEndpoint = encoderEndpoint;
    self[0].modelsDirectory = modelsDirectory;
    return self[0];
  }

  private static ManagedChannel remote(ServiceEndpoint endpoint) {
    return ClientChannels.open(endpoint.target(), endpoint.security(), MAX_MESSAGE_BYTES);
  }

  /** The client of the index service (its default deadline and retries). */
  public IndexClient index() {
    return index;
  }

  public String indexDescription() {
    return indexDescription;
  }

  /**
   * The client of the encoder (its default deadline and retries), starting the embedded encoder on
   * first use.
   */
  public synchronized EncoderClient encoder() {
    if (encoder == null) {
      encoderChannel = encoderFactory.get();
      encoder = EncoderClient.of(encoderChannel);
    }
    return encoder;
  }

  /** Most corpus slices encoded at once, whatever the number of encoder replicas. */
  public static final int MAX_SLICES_IN_FLIGHT = 16;

  /**
   * How many corpus slices a dense encode sends at once: one per encoder replica. A {@code dns:///}
   * encoder endpoint is spread with round_robin over every address its name resolves to (a headless
   * Service: one per ready pod), so that many slices keep every replica busy; it is counted when
   * asked (at most {@value #MAX_SLICES_IN_FLIGHT}, 1 when the name does not resolve). A direct
   * address and the embedded encoder are one replica, so slices go one at a time.
   */
  public synchronized int encodeSlicesInFlight() {
    if (encoderEndpoint == null || !encoderEndpoint.target().balanced()) {
      return 1;
    }
    try {
      int addresses =
          java.net.InetAddress.getAllByName(encoderEndpoint.target().address().host()).length;
      return Math.clamp(addresses, 1, MAX_SLICES_IN_FLIGHT);
    } catch (java.net.UnknownHostException unresolved) {
      return 1;
    }
  }

  /** Where the embedded services look for local models ({@code <id>/card.json}). */
  public synchronized Path modelsDirectory() {
    return modelsDirectory;
  }

  /**
   * Runs the embedded encoder and rerank service (when they start, on first use) on the execution
   * provider and device of {@code options}; remote services keep their own.
   */
  public synchronized Services withExecution(ExecutionOptions options) {
    this.execution = options;
    return this;
  }

  /** Points rerank calls at a running rerank service instead of the embedded one. */
  public Services withRerankEndpoint(ServiceEndpoint endpoint) {
    this.rerankEndpoint = endpoint;
    return this;
  }

  /**
   * The client of the rerank service (its default deadline and retries), starting the embedded
   * rerank service (over this encoder, and this index for candidates given by id) on first use.
   */
  public synchronized RerankClient reranker() {
    if (reranker == null) {
      if (rerankEndpoint != null) {
        rerankChannel = remote(rerankEndpoint);
      } else {
        String name = "tenbin-rerank-" + UUID.randomUUID();
        owned.add(
            0,
            EmbeddedServices.require("--rerank-endpoint")
                .startRerank(
                    name,
                    modelsDirectory,
                    cacheDirectory,
                    this::encoder,
                    this::encodeDense,
                    this::index,
                    execution));
        rerankChannel =
            InProcessChannelBuilder.forName(name).maxInboundMessageSize(MAX_MESSAGE_BYTES).build();
      }
      reranker = RerankClient.of(rerankChannel);
    }
    return reranker;
  }

  /**
   * Lets the embedded rerank service encode through {@code cache} until the returned handle is
   * closed: a bi-encoder reranker ({@code dense:MODEL}) then reads the query and document vectors
   * the job's retrieval already stored (same model, role, prompts and max length: the same {@link
   * dev.tenbin.eval.cache.CacheKey}) instead of encoding them again. Close it before the cache.
   */
  public synchronized Sharing shareEmbeddings(EmbeddingCache cache) {
    sharedCache = cache;
    sharedEncoder = null;
    return () -> {
      synchronized (this) {
        if (sharedCache == cache) {
          sharedCache = null;
          sharedEncoder = null;
        }
      }
    };
  }

  /** The sharing of a job's embedding cache; closing ends it. */
  public interface Sharing extends AutoCloseable {
    @Override
    void close();
  }

  /**
   * Full-width dense vectors for the embedded rerank service: through the shared embedding cache
   * when a job shares one, else straight from the encoder.
   */
  private List<float[]> encodeDense(String modelId, List<String> texts, boolean query) {
    CachedEncoder cached;
    synchronized (this) {
      if (sharedCache != null && sharedEncoder == null) {
        sharedEncoder = sharedCache.cached(encoder());
      }
      cached = sharedEncoder;
    }
    if (cached == null) {
      return encoder().denseEncoding().encodeDense(modelId, texts, query);
    }
    return cached.dense(modelId, texts, query, done -> {});
  }

  public String encoderDescription() {
    return encoderDescription;
  }

  /**
   * Makes every open channel try to connect again now instead of after its reconnect backoff (up to
   * two minutes): called before a work item is retried after a service came back.
   */
  public synchronized void resetConnectBackoff() {
    indexChannel.resetConnectBackoff();
    if (encoderChannel != null) {
      encoderChannel.resetConnectBackoff();
    }
    if (rerankChannel != null) {
      rerankChannel.resetConnectBackoff();
    }
  }

  @Override
  public void close() {
    List<ManagedChannel> channels = new ArrayList<>(List.of(indexChannel));
    if (encoderChannel != null) {
      channels.add(encoderChannel);
    }
    if (rerankChannel != null) {
      channels.add(rerankChannel);
    }
    for (ManagedChannel channel : channels) {
      channel.shutdown();
      try {
        channel.awaitTermination(5, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    for (AutoCloseable resource : owned) {
      try {
        resource.close();
      } catch (Exception e) {
        // Closing is best effort; the process is ending its use of these services.
      }
    }
  }

  /** The file naming the process that owns a temporary index folder. */
  static final String OWNER_FILE = "owner.pid";

  /**
   * A new temporary index folder, marked with this process's id; first removes the folders of
   * processes that are gone (killed before they could remove their own).
   */
  static Path createTempDirectory() {
    Path temporary = Path.of(System.getProperty("java.io.tmpdir"));
    removeAbandoned(temporary);
    try {
      Path folder = Files.createTempDirectory(temporary, "tenbin-index-");
      Files.writeString(folder.resolve(OWNER_FILE), Long.toString(ProcessHandle.current().pid()));
      return folder;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create a temporary index folder", e);
    }
  }

  /** Removes the {@code tenbin-index-*} folders under {@code temporary} whose owner is gone. */
  static void removeAbandoned(Path temporary) {
    try (var folders = Files.newDirectoryStream(temporary, "tenbin-index-*")) {
      for (Path folder : folders) {
        Path owner = folder.resolve(OWNER_FILE);
        if (!Files.isRegularFile(owner)) {
          continue; // not one of ours, or still being created
        }
        long pid;
        try {
          pid = Long.parseLong(Files.readString(owner).trim());
        } catch (IOException | NumberFormatException e) {
          continue;
        }
        if (ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)) {
          continue;
        }
        try {
          deleteRecursively(folder);
        } catch (IOException e) {
          // Another process is removing it, or it is not ours to remove: leave it.
        }
      }
    } catch (IOException | RuntimeException e) {
      // The temporary folder cannot be listed: nothing to tidy.
    }
  }

  private static void deleteRecursively(Path dir) throws IOException {
    if (!Files.exists(dir)) {
      return;
    }
    try (var paths = Files.walk(dir)) {
      for (Path path : paths.sorted(java.util.Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(path);
      }
    }
  }
}
