package dev.tenbin.bench.encoder;

import dev.tenbin.client.encoder.EncoderClient;
import dev.tenbin.core.Cancellation;
import dev.tenbin.encoder.EncoderCore;
import dev.tenbin.encoder.LoadedModel;
import dev.tenbin.encoder.Pooler;
import dev.tenbin.encoder.batching.BatchingLimits;
import dev.tenbin.encoder.light.LightQueryEncoder;
import dev.tenbin.encoder.light.TokenEmbeddingCache;
import dev.tenbin.encoder.server.EncoderServer;
import dev.tenbin.model.onnx.OnnxModel;
import dev.tenbin.model.tokenizer.TokenizedBatch;
import dev.tenbin.rpc.GrpcServerHost;
import dev.tenbin.rpc.ServerSettings;
import io.grpc.ManagedChannel;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.IntConsumer;
import java.util.stream.Stream;

/**
 * Encoder figures measured side by side in one run: documents/s in-process against over gRPC (the
 * in-process transport, and loopback Netty), token-budget batching against fixed batches of 32 on
 * the same mixed-length texts, full against LightRetriever single-query latency, and the
 * LightRetriever cache's build time and size.
 *
 * <p>The full query path goes through the token-budget batcher, whose maximum queue delay (the
 * configured one, 2 ms by default) is part of its latency: a lone query waits that long for
 * company. So full-query latency is measured twice, once with the configured delay and once on a
 * second core over the same configuration with no queue delay, and both speed-ups are reported.
 */
public final class EncoderBenchmark {
  /** The figures. */
  public record Result(
      String model,
      int documents,
      double inProcessDocsPerSecond,
      double grpcInProcessTransportDocsPerSecond,
      double grpcDocsPerSecond,
      double tokenBudgetDocsPerSecond,
      double fixed32DocsPerSecond,
      double fullQueryMicros,
      double fullQueryNoQueueDelayMicros,
      double queueDelayMillis,
      double lightQueryMicros,
      double lightQueriesPerSecond,
      double fullQueriesPerSecond,
      double cacheBuildSeconds,
      long cacheBytes,
      int vocabularySize) {
    public double grpcOverInProcess() {
      return grpcDocsPerSecond / inProcessDocsPerSecond;
    }

    public double tokenBudgetOverFixed32() {
      return tokenBudgetDocsPerSecond / fixed32DocsPerSecond;
    }

    /** Full query latency (with the configured queue delay) over light query latency. */
    public double lightSpeedup() {
      return fullQueryMicros / lightQueryMicros;
    }

    /** Full query latency with no queue delay over light query latency. */
    public double lightSpeedupNoQueueDelay() {
      return fullQueryNoQueueDelayMicros / lightQueryMicros;
    }
  }

  private final EncoderCore core;
  private final String modelId;

  public EncoderBenchmark(EncoderCore core, String modelId) {
    this.core = core;
    this.modelId = modelId;
  }

  /** Measures {@code modelId} on a core of its own over {@code config}, closed afterwards. */
  public static Result run(
      dev.tenbin.encoder.config.EncoderServiceConfig config,
      String modelId,
      List<String> documents,
      List<String> queries,
      IntConsumer cacheProgress) {
    try (EncoderCore core = new EncoderCore(config)) {
      return new EncoderBenchmark(core, modelId).run(documents, queries, cacheProgress);
    }
  }

  public Result run(List<String> documents, List<String> queries, IntConsumer cacheProgress) {
    LoadedModel model = core.model(modelId);
    documentsMeasured = documents.size();
    // Warm-up of every path on a few inputs.
    core.encodeDense(
        modelId,
        documents.subList(0, Math.min(16, documents.size())),
        false,
        0,
        Cancellation.NEVER);

    double inProcess =
        docsPerSecond(() -> core.encodeDense(modelId, documents, false, 0, Cancellation.NEVER));
    double grpcInProcess;
    String name = "encoder-bench-" + java.util.UUID.randomUUID();
    try (GrpcServerHost local =
        GrpcServerHost.startInProcess(
            name, new SimpleMeterRegistry(), EncoderServer.services(core))) {
      ManagedChannel channel =
          InProcessChannelBuilder.forName(name).maxInboundMessageSize(256 * 1024 * 1024).build();
      try {
        EncoderClient client = EncoderClient.of(channel);
        client.encodeDense(modelId, documents.subList(0, Math.min(16, documents.size())), false, 0);
        grpcInProcess = docsPerSecond(() -> client.encodeDense(modelId, documents, false, 0));
      } finally {
        channel.shutdownNow();
      }
    }
    double grpc;
    GrpcServerHost host =
        GrpcServerHost.start(
            new ServerSettings("127.0.0.1", 0, -1, 256 * 1024 * 1024, Duration.ofSeconds(1)),
            EncoderServer.services(core));
    ManagedChannel channel =
        NettyChannelBuilder.forAddress("127.0.0.1", host.port())
            .usePlaintext()
            .maxInboundMessageSize(256 * 1024 * 1024)
            .build();
    try {
      EncoderClient client = EncoderClient.of(channel);
      client.encodeDense(modelId, documents.subList(0, Math.min(16, documents.size())), false, 0);
      grpc = docsPerSecond(() -> client.encodeDense(modelId, documents, false, 0));
    } finally {
      channel.shutdownNow();
      host.close();
    }
    double budget =
        docsPerSecond(() -> core.encodeDense(modelId, documents, false, 0, Cancellation.NEVER));
    TokenizedBatch tokens = model.tokenizer().encode(prefixed(model, documents));
    double fixed = docsPerSecond(() -> fixedBatches(model, tokens, 32));

    Path folder = TokenEmbeddingCache.folder(core.config().cacheDirectory(), model.card());
    long start = System.nanoTime();
    TokenEmbeddingCache.build(model, folder, 2048, 256, 0, false, cacheProgress);
    double buildSeconds = (System.nanoTime() - start) / 1e9;
    LightQueryEncoder light = new LightQueryEncoder(core, core.config().cacheDirectory());
    // Warm-up: the lookup is a few microseconds once compiled, so it needs thousands of calls
    // before the JIT has compiled it; the full path runs a few queries.
    for (int round = 0; round < Math.max(1, 5_000 / queries.size()); round++) {
      for (String query : queries) {
        light.dense(modelId, List.of(query), 0, true);
      }
    }
    for (String query : queries.subList(0, Math.min(10, queries.size()))) {
      core.encodeDense(modelId, List.of(query), true, 0, Cancellation.NEVER);
    }

    double[] fullWithAndWithout = fullQueryMicrosWithAndWithoutQueueDelay(queries);
    double full = fullWithAndWithout[0];
    double fullNoDelay = fullWithAndWithout[1];
    double lookup = medianMicros(queries, q -> light.dense(modelId, List.of(q), 0, true));
    double lightQps = queriesPerSecond(queries, q -> light.dense(modelId, List.of(q), 0, true));
    double fullQps =
        queriesPerSecond(
            queries, q -> core.encodeDense(modelId, List.of(q), true, 0, Cancellation.NEVER));
    return new Result(
        modelId,
        documents.size(),
        inProcess,
        grpcInProcess,
        grpc,
        budget,
        fixed,
        full,
        fullNoDelay,
        core.config().batching().maxQueueDelay().toNanos() / 1e6,
        lookup,
        lightQps,
        fullQps,
        buildSeconds,
        folderBytes(folder),
        TokenEmbeddingCache.load(folder).manifest().vocabularySize());
  }

  /**
   * Median full-query latency with the configured queue delay (this core) and with none (a second
   * core over the same configuration, its model loaded again and closed afterwards). The two are
   * timed alternately, query by query, so a change in machine load hits both alike.
   */
  private double[] fullQueryMicrosWithAndWithoutQueueDelay(List<String> queries) {
    BatchingLimits limits = core.config().batching();
    BatchingLimits noDelay =
        new BatchingLimits(
            limits.maxBatchTokens(),
            limits.maxBatchSize(),
            limits.maxQueuedInputs(),
            Duration.ZERO,
            limits.maxQueueWait());
    try (EncoderCore direct = new EncoderCore(core.config().withBatching(noDelay))) {
      for (String query : queries.subList(0, Math.min(10, queries.size()))) {
        direct.encodeDense(modelId, List.of(query), true, 0, Cancellation.NEVER);
      }
      double[] delayed = new double[queries.size()];
      double[] immediate = new double[queries.size()];
      for (int i = 0; i < queries.size(); i++) {
        List<String> query = List.of(queries.get(i));
        long start = System.nanoTime();
        core.encodeDense(modelId, query, true, 0, Cancellation.NEVER);
        delayed[i] = (System.nanoTime() - start) / 1e3;
        start = System.nanoTime();
        direct.encodeDense(modelId, query, true, 0, Cancellation.NEVER);
        immediate[i] = (System.nanoTime() - start) / 1e3;
      }
      return new double[] {median(delayed), median(immediate)};
    }
  }

  private static double median(double[] values) {
    double[] sorted = values.clone();
    Arrays.sort(sorted);
    return sorted[sorted.length / 2];
  }

  private static List<String> prefixed(LoadedModel model, List<String> texts) {
    List<String> out = new ArrayList<>();
    for (String text : texts) {
      out.add(model.card().documentPrompt() + text);
    }
    return out;
  }

  /** Fixed batches in input order, each padded to its longest input (the usual client loop). */
  private static void fixedBatches(LoadedModel model, TokenizedBatch tokens, int size) {
    for (int from = 0; from < tokens.size(); from += size) {
      long[][] ids = Arrays.copyOfRange(tokens.ids(), from, Math.min(tokens.size(), from + size));
      OnnxModel.Output output = model.onnx().run(ids);
      for (int i = 0; i < ids.length; i++) {
        Pooler.finish(
            Pooler.pool(output, i, ids[i].length, model.card().pooling()),
            model.card().dimension(),
            true);
      }
    }
  }

  private int documentsMeasured;

  private double docsPerSecond(Runnable pass) {
    long start = System.nanoTime();
    pass.run();
    return documentsMeasured / ((System.nanoTime() - start) / 1e9);
  }

  private interface Task {
    void run(String query);
  }

  private static double medianMicros(List<String> queries, Task task) {
    double[] micros = new double[queries.size()];
    for (int i = 0; i < queries.size(); i++) {
      long start = System.nanoTime();
      task.run(queries.get(i));
      micros[i] = (System.nanoTime() - start) / 1e3;
    }
    Arrays.sort(micros);
    return micros[micros.length / 2];
  }

  private static double queriesPerSecond(List<String> queries, Task task) {
    long start = System.nanoTime();
    for (String query : queries) {
      task.run(query);
    }
    return queries.size() / ((System.nanoTime() - start) / 1e9);
  }

  private static long folderBytes(Path folder) {
    try (Stream<Path> files = Files.walk(folder)) {
      return files.filter(Files::isRegularFile).mapToLong(p -> p.toFile().length()).sum();
    } catch (IOException e) {
      return -1;
    }
  }
}
