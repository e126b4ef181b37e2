package dev.tenbin.eval.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenbin.encoder.EncoderCore;
import dev.tenbin.encoder.config.EncoderServiceConfig;
import dev.tenbin.encoder.server.EncoderServer;
import dev.tenbin.eval.provenance.Probes;
import dev.tenbin.eval.result.RankingMode;
import dev.tenbin.eval.store.CellRecord;
import dev.tenbin.eval.store.ResultStore;
import dev.tenbin.model.ModelHosting;
import dev.tenbin.proto.encoder.v1.EncodeDenseRequest;
import dev.tenbin.proto.encoder.v1.InputRole;
import dev.tenbin.proto.encoder.v1.StreamEncodeDenseRequest;
import dev.tenbin.rerank.config.RerankServiceConfig;
import dev.tenbin.rerank.server.RerankServer;
import dev.tenbin.rpc.ClientSecurity;
import dev.tenbin.rpc.GrpcServerHost;
import dev.tenbin.rpc.ServerSettings;
import io.grpc.BindableService;
import io.grpc.ForwardingServerCallListener;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.ServerInterceptors;
import io.grpc.ServerServiceDefinition;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * One embedding store for the whole job: a bi-encoder reranker that follows dense retrieval with
 * the same model reads the vectors retrieval stored instead of encoding them again, with the same
 * rankings and scores as a rerank service that encodes everything itself.
 */
class SharedEmbeddingsJobTest {
  @TempDir Path tmp;
  private Path models;
  private Path spec;
  private EncoderCore core;
  private GrpcServerHost encoder;

  /** Dense texts the encoder was asked for, by role and text. */
  private final Map<String, AtomicInteger> encoded = new ConcurrentHashMap<>();

  @BeforeEach
  void start() throws Exception {
    TinyJob.write(tmp);
    models = TinyJob.models(tmp);
    spec = tmp.resolve("job.yaml");
    Files.writeString(
        spec,
        """
        name: shared-job
        task_sets: [tasks.yaml]
        retrievers: [{retriever: dense:tiny-dense, variants: [base]}]
        rerankers: [dense:tiny-dense]
        candidates: {dense_model: tiny-dense}
        """);
    core = new EncoderCore(EncoderServiceConfig.embedded(models, tmp.resolve("encoder-cache")));
    List<BindableService> counted = new ArrayList<>();
    for (BindableService service : EncoderServer.services(core)) {
      ServerServiceDefinition definition =
          ServerInterceptors.intercept(service.bindService(), new CountingInterceptor());
      counted.add(() -> definition);
    }
    encoder = GrpcServerHost.start(ServerSettings.ephemeral(), counted);
  }

  @AfterEach
  void stop() {
    encoder.close();
    core.close();
  }

  @Test
  void aBiEncoderRerankerAfterDenseRetrievalEncodesEachTextOnceWithTheSameScores()
      throws Exception {
    Path shared = tmp.resolve("shared");
    CliRunner run = run(shared, tmp.resolve("cache-shared"));
    assertThat(run.exitCode()).as(run.err()).isZero();
    Map<String, Integer> sharedCounts = counts();
    assertThat(sharedCounts.keySet())
        .anyMatch(key -> key.startsWith("document|"))
        .anyMatch(key -> key.startsWith("query|"));
    assertThat(sharedCounts)
        .as("every document is encoded once in the job, the reranker included")
        .allSatisfy(
            (text, times) -> {
              if (text.startsWith("document|")) {
                assertThat(times).as(text).isEqualTo(1);
              }
            });

    // The same job on a fresh cache with a rerank service that encodes for itself: the old way.
    encoded.clear();
    Path alone = tmp.resolve("alone");
    try (RerankServer.Running rerank =
        RerankServer.start(
            new RerankServiceConfig(
                ServerSettings.ephemeral(),
                ModelHosting.embedded(models, tmp.resolve("rerank-cache")),
                dev.tenbin.rpc.ServiceTarget.direct("127.0.0.1", encoder.port()),
                ClientSecurity.plaintext(),
                RerankServiceConfig.DEFAULT_MAX_PAIRS,
                RerankServiceConfig.DEFAULT_MAX_BATCH_TOKENS))) {
      CliRunner reference =
          run(
              alone,
              tmp.resolve("cache-alone"),
              "--rerank-endpoint",
              "127.0.0.1:" + rerank.host().port());
      assertThat(reference.exitCode()).as(reference.err()).isZero();
    }
    Map<String, Integer> aloneCounts = counts();
    assertThat(aloneCounts.keySet()).isEqualTo(sharedCounts.keySet());
    // Queries are also encoded alone by the dense cell's single-query latency probe, in both jobs.
    assertThat(aloneCounts)
        .as("a rerank service encoding for itself encodes every query and document once more")
        .allSatisfy(
            (text, times) -> assertThat(times).as(text).isEqualTo(sharedCounts.get(text) + 1));

    List<CellRecord> sharedCells = ResultStore.existing(shared, "--out").readAll();
    List<CellRecord> aloneCells = ResultStore.existing(alone, "--out").readAll();
    assertThat(sharedCells)
        .extracting(c -> c.key().mode())
        .contains(RankingMode.RERANK, RankingMode.RERANK_WITHOUT_SAFEGUARD);
    assertThat(byKey(sharedCells)).isEqualTo(byKey(aloneCells));
  }

  private CliRunner run(Path out, Path cache, String... more) {
    List<String> args =
        new ArrayList<>(List.of("--encoder-endpoint", "127.0.0.1:" + encoder.port()));
    args.addAll(List.of(more));
    return TinyJob.run(tmp, spec, out, cache, args.toArray(String[]::new));
  }

  /**
   * Texts of the collection encoded, by role, and how often. The provenance probes (encoded once
   * per model per job on purpose, past every cache, to fingerprint the numerical condition) are not
   * the collection's texts and are left out.
   */
  private Map<String, Integer> counts() {
    Map<String, Integer> counts = new TreeMap<>();
    encoded.forEach(
        (text, times) -> {
          if (!Probes.TEXTS.contains(text.substring(text.indexOf('|') + 1))) {
            counts.put(text, times.get());
          }
        });
    return counts;
  }

  /** Each cell's rankings (doc ids and scores, in order) by its system, variant and mode. */
  private static Map<String, List<?>> byKey(List<CellRecord> cells) {
    Map<String, List<?>> rankings = new TreeMap<>();
    for (CellRecord cell : cells) {
      rankings.put(
          cell.key().system().name() + "/" + cell.key().variant() + "/" + cell.key().mode(),
          cell.queries().stream().map(q -> List.of(q.queryId(), q.docs())).toList());
    }
    return rankings;
  }

  /** Counts the texts of every dense encode request by role. */
  private final class CountingInterceptor implements ServerInterceptor {
    @Override
    public <ReqT, RespT> ServerCall.Listener<ReqT> interceptCall(
        ServerCall<ReqT, RespT> call, Metadata headers, ServerCallHandler<ReqT, RespT> next) {
      return new ForwardingServerCallListener.SimpleForwardingServerCallListener<>(
          next.startCall(call, headers)) {
        @Override
        public void onMessage(ReqT message) {
          if (message instanceof EncodeDenseRequest request) {
            count(request.getRole(), request.getTextsList());
          } else if (message instanceof StreamEncodeDenseRequest stream) {
            count(stream.getRequest().getRole(), stream.getRequest().getTextsList());
          }
          super.onMessage(message);
        }
      };
    }

    private void count(InputRole role, List<String> texts) {
      String prefix = role == InputRole.INPUT_ROLE_QUERY ? "query|" : "document|";
      for (String text : texts) {
        encoded.computeIfAbsent(prefix + text, t -> new AtomicInteger()).incrementAndGet();
      }
    }
  }
}
