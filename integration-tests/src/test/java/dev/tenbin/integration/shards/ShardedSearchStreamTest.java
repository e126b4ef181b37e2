package dev.tenbin.integration.shards;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tenbin.client.index.IndexClient;
import dev.tenbin.client.index.ShardedSearchStream;
import dev.tenbin.eval.retrieval.IndexSession;
import dev.tenbin.eval.services.IndexPlacement;
import dev.tenbin.index.collection.CollectionCatalog;
import dev.tenbin.index.config.IndexServiceConfig;
import dev.tenbin.index.server.IndexServer;
import dev.tenbin.proto.common.v1.DenseVector;
import dev.tenbin.proto.common.v1.Ranking;
import dev.tenbin.proto.common.v1.Similarity;
import dev.tenbin.proto.common.v1.SparseVector;
import dev.tenbin.proto.index.v1.DenseOptions;
import dev.tenbin.proto.index.v1.Document;
import dev.tenbin.proto.index.v1.Family;
import dev.tenbin.proto.index.v1.Quantization;
import dev.tenbin.proto.index.v1.Query;
import dev.tenbin.proto.index.v1.SearchRequest;
import dev.tenbin.proto.index.v1.SearchResponse;
import dev.tenbin.rpc.ClientChannels;
import dev.tenbin.rpc.ClientSecurity;
import dev.tenbin.rpc.KeyRoutedChannel;
import dev.tenbin.rpc.ServiceTarget;
import dev.tenbin.rpc.StatusMapper;
import io.grpc.BindableService;
import io.grpc.Deadline;
import io.grpc.Server;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A search stream over a collection of K shards of R replicas, on three real index servers as the
 * pods of one StatefulSet, answers every request as one collection's unary search does (BM25 with
 * the collection's statistics, dense int8 re-scored in float, learned sparse): one request at a
 * time and pipelined, in order; a refused request ends the stream naming its field after the
 * earlier answers; a pod killed while the stream runs is routed around with the same answers.
 */
class ShardedSearchStreamTest {
  @TempDir Path tmp;

  private static final List<String> POD_NAMES =
      List.of(
          "tenbin-index-0.tenbin-index-headless:50052",
          "tenbin-index-1.tenbin-index-headless:50052",
          "tenbin-index-2.tenbin-index-headless:50052");

  private static final int DIMENSION = 8;
  private static final int VOCABULARY = 16;
  private static final List<String> WORDS =
      List.of("alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta");

  private final List<Server> servers = new ArrayList<>();
  private final List<CollectionCatalog> catalogs = new ArrayList<>();
  private KeyRoutedChannel channel;
  private IndexClient index;

  @BeforeEach
  void startThreePods() throws IOException {
    List<Integer> ports = new ArrayList<>();
    for (int i = 0; i < POD_NAMES.size(); i++) {
      Path data = tmp.resolve("pod-" + i);
      CollectionCatalog catalog = CollectionCatalog.open(data);
      NettyServerBuilder builder =
          NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
              .maxInboundMessageSize(64 * 1024 * 1024);
      for (BindableService service :
          IndexServer.services(catalog, IndexServiceConfig.embedded(data))) {
        builder.addService(service);
      }
      Server server = builder.build().start();
      servers.add(server);
      catalogs.add(catalog);
      ports.add(server.getPort());
    }
    channel =
        IndexPlacement.open(
            POD_NAMES,
            pod ->
                ClientChannels.open(
                    ServiceTarget.parse(
                        "--index-pods", "127.0.0.1:" + ports.get(POD_NAMES.indexOf(pod))),
                    ClientSecurity.plaintext(),
                    64 * 1024 * 1024));
    index = IndexClient.of(channel);
  }

  @AfterEach
  void stopPods() throws Exception {
    channel.shutdownNow();
    channel.awaitTermination(10, TimeUnit.SECONDS);
    for (Server server : servers) {
      server.shutdownNow();
      server.awaitTermination(10, TimeUnit.SECONDS);
    }
    for (CollectionCatalog catalog : catalogs) {
      catalog.close();
    }
  }

  /** Documents with text of few words and coarse vectors: many tie exactly in every family. */
  private static List<Document> documents() {
    SplittableRandom random = new SplittableRandom(17);
    List<Document> documents = new ArrayList<>();
    for (int d = 0; d < 400; d++) {
      StringBuilder text = new StringBuilder();
      for (int w = random.nextInt(2, 6); w > 0; w--) {
        text.append(WORDS.get(random.nextInt(WORDS.size()))).append(' ');
      }
      documents.add(
          Document.newBuilder()
              .setId("doc-" + d)
              .setText(text.toString().strip())
              .setDense(dense(random, true))
              .setSparse(sparse(random))
              .build());
    }
    return documents;
  }

  private static DenseVector dense(SplittableRandom random, boolean coarse) {
    DenseVector.Builder vector = DenseVector.newBuilder();
    for (int i = 0; i < DIMENSION; i++) {
      vector.addValues(coarse ? random.nextInt(-3, 4) : (float) random.nextGaussian());
    }
    return vector.build();
  }

  private static SparseVector sparse(SplittableRandom random) {
    TreeSet<Integer> ids = new TreeSet<>();
    for (int n = random.nextInt(1, 5); ids.size() < n; ) {
      ids.add(random.nextInt(VOCABULARY));
    }
    SparseVector.Builder vector = SparseVector.newBuilder();
    ids.forEach(term -> vector.addIndices(term).addValues(random.nextInt(1, 4)));
    return vector.build();
  }

  /** One request of each family per round: BM25, dense int8 re-scored in float, sparse. */
  private static List<SearchRequest> requests(String collection) {
    SplittableRandom random = new SplittableRandom(23);
    List<SearchRequest> requests = new ArrayList<>();
    for (int q = 0; q < 8; q++) {
      requests.add(
          SearchRequest.newBuilder()
              .setCollection(collection)
              .setFamily(Family.FAMILY_BM25)
              .setTopK(30)
              .addQueries(
                  Query.newBuilder()
                      .setId("bm25-" + q)
                      .setText(WORDS.get(q) + " " + WORDS.get((q + 3) % WORDS.size())))
              .build());
      requests.add(
          SearchRequest.newBuilder()
              .setCollection(collection)
              .setFamily(Family.FAMILY_DENSE)
              .setTopK(30)
              .setDense(
                  DenseOptions.newBuilder()
                      .setSimilarity(Similarity.SIMILARITY_DOT)
                      .setQuantization(Quantization.QUANTIZATION_INT8)
                      .setRescore(true)
                      .setRescoreDepth(40))
              .addQueries(Query.newBuilder().setId("dense-" + q).setDense(dense(random, false)))
              .build());
      requests.add(
          SearchRequest.newBuilder()
              .setCollection(collection)
              .setFamily(Family.FAMILY_SPARSE)
              .setTopK(30)
              .addQueries(Query.newBuilder().setId("sparse-" + q).setSparse(sparse(random)))
              .build());
    }
    return requests;
  }

  private IndexSession session(int shards, int replicas) {
    IndexSession session =
        new IndexSession(
            index, new IndexSession.Shape("en", DIMENSION, VOCABULARY, 0, null, shards, replicas));
    session.ingest(documents());
    return session;
  }

  /** The rankings of answers, without their timings. */
  private static List<List<Ranking>> rankings(List<SearchResponse> answers) {
    return answers.stream().map(SearchResponse::getRankingsList).toList();
  }

  /** What one collection's unary searches answer. */
  private List<List<Ranking>> oneCollection() {
    try (IndexSession one = session(1, 1)) {
      List<SearchResponse> answers = new ArrayList<>();
      for (SearchRequest request : requests(one.name())) {
        answers.add(one.collection().search(request));
      }
      return rankings(answers);
    }
  }

  private static Deadline inAMinute() {
    return Deadline.after(1, TimeUnit.MINUTES);
  }

  @Test
  void streamsOverShardsAndReplicasAnswerAsOneCollectionOneAtATimeAndPipelined() {
    List<List<Ranking>> expected = oneCollection();
    assertThat(expected.getFirst().getFirst().getDocumentsCount()).isEqualTo(30);
    for (int[] layout : new int[][] {{1, 1}, {3, 1}, {2, 2}}) {
      String as = layout[0] + " shards of " + layout[1] + " replicas";
      try (IndexSession session = session(layout[0], layout[1])) {
        List<SearchRequest> requests = requests(session.name());
        List<SearchResponse> oneAtATime = new ArrayList<>();
        try (ShardedSearchStream stream = session.collection().searchStream(inAMinute())) {
          for (SearchRequest request : requests) {
            oneAtATime.add(stream.search(request));
          }
        }
        assertThat(rankings(oneAtATime)).as(as + ", one at a time").isEqualTo(expected);
        List<SearchResponse> pipelined = new ArrayList<>();
        try (ShardedSearchStream stream = session.collection().searchStream(inAMinute())) {
          // Four requests in flight: answers still come in the order sent.
          int sent = 0;
          while (pipelined.size() < requests.size()) {
            while (sent < requests.size() && sent - pipelined.size() < 4) {
              stream.send(requests.get(sent++));
            }
            pipelined.add(stream.next());
          }
        }
        assertThat(rankings(pipelined)).as(as + ", pipelined").isEqualTo(expected);
      }
    }
  }

  @Test
  void aRefusedRequestEndsTheStreamNamingItsFieldAfterTheEarlierAnswers() {
    try (IndexSession session = session(3, 1)) {
      List<SearchRequest> requests = requests(session.name());
      try (ShardedSearchStream stream = session.collection().searchStream(inAMinute())) {
        stream.send(requests.get(0));
        stream.send(requests.get(1).toBuilder().setTopK(0).build());
        stream.send(requests.get(2));
        assertThat(stream.next().getRankings(0).getDocumentsCount()).isEqualTo(30);
        assertThatThrownBy(stream::next)
            .isInstanceOfSatisfying(
                StatusRuntimeException.class,
                refused -> {
                  assertThat(refused.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
                  assertThat(StatusMapper.violatedField(refused)).isEqualTo("request.top_k");
                });
        // The stream has ended: later calls throw the same status without sending.
        assertThatThrownBy(() -> stream.search(requests.get(3)))
            .isInstanceOfSatisfying(
                StatusRuntimeException.class,
                again -> assertThat(StatusMapper.violatedField(again)).isEqualTo("request.top_k"));
      }
      try (ShardedSearchStream stream = session.collection().searchStream(inAMinute())) {
        assertThatThrownBy(
                () -> stream.search(requests.get(0).toBuilder().setCollection("other").build()))
            .isInstanceOfSatisfying(
                StatusRuntimeException.class,
                refused -> {
                  assertThat(refused.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
                  assertThat(StatusMapper.violatedField(refused)).isEqualTo("request.collection");
                });
      }
    }
  }

  @Test
  void aPodKilledWhileTheStreamRunsIsRoutedAroundWithTheSameAnswers() {
    List<List<Ranking>> expected = oneCollection();
    try (IndexSession session = session(2, 2)) {
      List<SearchRequest> requests = requests(session.name());
      // The stream's first streams go to replica 0 of each shard, on the pods of ranks 0 and 1
      // (shard + replica); the pod of rank 1 also holds shard 0's replica 1.
      Server killed = servers.get(POD_NAMES.indexOf(channel.placement().nodeOf(session.name(), 1)));
      List<SearchResponse> answers = new ArrayList<>();
      try (ShardedSearchStream stream = session.collection().searchStream(inAMinute())) {
        for (int r = 0; r < requests.size(); r++) {
          if (r == 5) {
            // Two requests in flight when the pod dies: they are sent again to the other replica.
            stream.send(requests.get(r));
            stream.send(requests.get(r + 1));
            killed.shutdownNow();
            answers.add(stream.next());
            answers.add(stream.next());
            r++;
            continue;
          }
          answers.add(stream.search(requests.get(r)));
        }
      }
      assertThat(rankings(answers)).isEqualTo(expected);
      assertThat(session.collection().liveReplicas(1)).containsExactly(1);
      // Unary searches after it take the replicas in turn: shard 0's on the killed pod is left out.
      List<SearchResponse> unary = new ArrayList<>();
      for (SearchRequest request : requests) {
        unary.add(session.collection().search(request));
      }
      assertThat(rankings(unary)).isEqualTo(expected);
      assertThat(session.collection().liveReplicas(0)).containsExactly(0);
    }
  }
}
