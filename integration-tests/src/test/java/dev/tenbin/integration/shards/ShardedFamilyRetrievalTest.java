package dev.tenbin.integration.shards;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenbin.client.index.IndexClient;
import dev.tenbin.eval.retrieval.MultiVectorRetrieval;
import dev.tenbin.eval.retrieval.SparseRetrieval;
import dev.tenbin.eval.retrieval.SparseVariant;
import dev.tenbin.eval.services.Services;
import dev.tenbin.index.server.IndexServer;
import dev.tenbin.proto.index.v1.CreateCollectionRequest;
import dev.tenbin.scoring.beir.BeirDataset;
import dev.tenbin.scoring.beir.BeirDatasetReader;
import dev.tenbin.scoring.metrics.ScoredDoc;
import dev.tenbin.testing.models.TinyModels;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.ClientInterceptor;
import io.grpc.ClientInterceptors;
import io.grpc.ForwardingClientCall;
import io.grpc.ManagedChannel;
import io.grpc.MethodDescriptor;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The learned sparse ({@code sparse:}, {@code sparse-bm25:}) and late-interaction ({@code
 * multivector:}) retrievals of a job, with tiny models on the embedded encoder and index, give over
 * K=3 shards and over K=2 shards of R=2 replicas the rankings of one collection: the same
 * documents, scores bit for bit and ties.
 */
class ShardedFamilyRetrievalTest {
  @TempDir Path tmp;

  private static final int[][] LAYOUTS = {{3, 1}, {2, 2}};

  /** A corpus of the tiny models' words, with its queries and judgments. */
  private BeirDataset dataset() throws IOException {
    Path dir = Files.createDirectories(tmp.resolve("beir").resolve("qrels"));
    SplittableRandom random = new SplittableRandom(31);
    List<String> words = TinyModels.WORDS;
    StringBuilder corpus = new StringBuilder();
    for (int d = 0; d < 120; d++) {
      StringBuilder text = new StringBuilder();
      for (int w = random.nextInt(1, 5); w > 0; w--) {
        text.append(words.get(random.nextInt(words.size()))).append(' ');
      }
      corpus.append(
          "{\"_id\":\"d%d\",\"title\":\"\",\"text\":\"%s\"}\n"
              .formatted(d, text.toString().strip()));
    }
    Files.writeString(dir.getParent().resolve("corpus.jsonl"), corpus);
    StringBuilder queries = new StringBuilder();
    StringBuilder qrels = new StringBuilder("query-id\tcorpus-id\tscore\n");
    for (int q = 0; q < 12; q++) {
      queries.append(
          "{\"_id\":\"q%d\",\"text\":\"%s %s\"}\n"
              .formatted(q, words.get(q % words.size()), words.get((q * 3 + 1) % words.size())));
      qrels.append("q%d\td%d\t1\n".formatted(q, q * 7));
    }
    Files.writeString(dir.getParent().resolve("queries.jsonl"), queries);
    Files.writeString(dir.resolve("test.tsv"), qrels);
    return BeirDatasetReader.read(dir.getParent());
  }

  /** The names of the index collections created so far (every shard's every replica). */
  private final List<String> created = new CopyOnWriteArrayList<>();

  /** An embedded index whose client records every collection it creates. */
  private IndexClient recordingIndex() {
    String name = "index-" + UUID.randomUUID();
    open.add(IndexServer.startInProcess(name, tmp.resolve(name), new SimpleMeterRegistry()));
    ManagedChannel channel = InProcessChannelBuilder.forName(name).build();
    open.add(channel::shutdownNow);
    ClientInterceptor recorder =
        new ClientInterceptor() {
          @Override
          public <Q, A> ClientCall<Q, A> interceptCall(
              MethodDescriptor<Q, A> method, CallOptions options, Channel next) {
            return new ForwardingClientCall.SimpleForwardingClientCall<>(
                next.newCall(method, options)) {
              @Override
              public void sendMessage(Q message) {
                if (message instanceof CreateCollectionRequest create) {
                  created.add(create.getSpec().getName());
                }
                super.sendMessage(message);
              }
            };
          }
        };
    return IndexClient.of(ClientInterceptors.intercept(channel, recorder));
  }

  private final List<AutoCloseable> open = new ArrayList<>();

  @AfterEach
  void close() throws Exception {
    for (AutoCloseable resource : open.reversed()) {
      resource.close();
    }
  }

  /** Checks that the last run created the collections of {@code shards} x {@code replicas}. */
  private void assertCreated(int shards, int replicas) {
    assertThat(created).hasSize(shards * replicas);
    String last =
        shards == 1 && replicas == 1
            ? ""
            : (shards > 1 ? ".shard-" + (shards - 1) + "-of-" + shards : "")
                + (replicas > 1 ? ".replica-" + (replicas - 1) + "-of-" + replicas : "");
    assertThat(created.getLast()).endsWith(last);
    created.clear();
  }

  private Map<String, List<ScoredDoc>> sparse(
      IndexClient index,
      Services services,
      BeirDataset data,
      boolean bm25Weights,
      int shards,
      int replicas) {
    return new SparseRetrieval(index, services.encoder())
        .withLatencyConcurrency(1)
        .withShards(shards)
        .withReplicas(replicas)
        .run(data, "tiny-splade", bm25Weights, 30, List.of(SparseVariant.BASE))
        .get(SparseVariant.BASE.name())
        .rankings();
  }

  private Map<String, List<ScoredDoc>> multiVector(
      IndexClient index, Services services, BeirDataset data, int shards, int replicas) {
    return new MultiVectorRetrieval(index, services.encoder())
        .withLatencyConcurrency(1)
        .withShards(shards)
        .withReplicas(replicas)
        .run(data, "tiny-colbert", 30)
        .rankings();
  }

  @Test
  void sparseAndLateInteractionRunsOverShardsAndReplicasRankAsOneCollection() throws Exception {
    Path models = tmp.resolve("models");
    TinyModels.sparse(models, "tiny-splade");
    TinyModels.multiVector(models, "tiny-colbert");
    BeirDataset data = dataset();
    IndexClient index = recordingIndex();
    try (Services services = Services.connect(null, null, models, tmp.resolve("cache"))) {
      for (boolean bm25Weights : new boolean[] {false, true}) {
        Map<String, List<ScoredDoc>> one = sparse(index, services, data, bm25Weights, 1, 1);
        assertCreated(1, 1);
        assertThat(one).hasSize(12);
        assertThat(one.values()).anySatisfy(ranking -> assertThat(ranking).hasSizeGreaterThan(5));
        for (int[] layout : LAYOUTS) {
          assertThat(sparse(index, services, data, bm25Weights, layout[0], layout[1]))
              .as("sparse, BM25 weights " + bm25Weights + ", " + layout[0] + "x" + layout[1])
              .isEqualTo(one);
          assertCreated(layout[0], layout[1]);
        }
      }
      Map<String, List<ScoredDoc>> one = multiVector(index, services, data, 1, 1);
      assertCreated(1, 1);
      assertThat(one.values()).allSatisfy(ranking -> assertThat(ranking).hasSize(30));
      for (int[] layout : LAYOUTS) {
        assertThat(multiVector(index, services, data, layout[0], layout[1]))
            .as("late interaction, " + layout[0] + "x" + layout[1])
            .isEqualTo(one);
        assertCreated(layout[0], layout[1]);
      }
    }
  }
}
