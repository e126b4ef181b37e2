package dev.tenbin.integration.shards;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenbin.client.index.IndexClient;
import dev.tenbin.client.index.ShardedCollection;
import dev.tenbin.eval.retrieval.Bm25Retrieval;
import dev.tenbin.eval.retrieval.IndexSession;
import dev.tenbin.eval.retrieval.RetrievalResult;
import dev.tenbin.eval.services.IndexPlacement;
import dev.tenbin.index.collection.CollectionCatalog;
import dev.tenbin.index.config.IndexServiceConfig;
import dev.tenbin.index.server.IndexServer;
import dev.tenbin.proto.common.v1.DenseVector;
import dev.tenbin.proto.common.v1.Similarity;
import dev.tenbin.proto.index.v1.DenseOptions;
import dev.tenbin.proto.index.v1.Document;
import dev.tenbin.proto.index.v1.Family;
import dev.tenbin.proto.index.v1.Quantization;
import dev.tenbin.proto.index.v1.Query;
import dev.tenbin.proto.index.v1.SearchRequest;
import dev.tenbin.proto.index.v1.SearchResponse;
import dev.tenbin.rpc.ClientChannels;
import dev.tenbin.rpc.ClientSecurity;
import dev.tenbin.rpc.GrpcServerHost;
import dev.tenbin.rpc.KeyRoutedChannel;
import dev.tenbin.rpc.ServerSettings;
import dev.tenbin.rpc.ServiceTarget;
import dev.tenbin.scoring.beir.BeirDataset;
import dev.tenbin.scoring.beir.BeirDatasetReader;
import dev.tenbin.scoring.beir.SyntheticBeir;
import dev.tenbin.scoring.metrics.ScoredDoc;
import io.grpc.ManagedChannel;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A collection split into shards ranks as one collection: the same documents, scores (bit for bit)
 * and ties, with the shards in one index process or on three index servers behind the placement.
 */
class ShardedCollectionTest {
  @TempDir Path tmp;

  private final List<AutoCloseable> open = new ArrayList<>();

  @AfterEach
  void close() throws Exception {
    for (AutoCloseable resource : open.reversed()) {
      resource.close();
    }
  }

  /** One embedded index, reached in-process. */
  private ManagedChannel oneIndex(String name) {
    open.add(IndexServer.startInProcess(name, tmp.resolve(name), new SimpleMeterRegistry()));
    ManagedChannel channel = InProcessChannelBuilder.forName(name).build();
    open.add(channel::shutdownNow);
    return channel;
  }

  /** Three index servers on loopback as the pods of one StatefulSet, behind the placement. */
  private KeyRoutedChannel threeIndexes() {
    List<String> pods = new ArrayList<>();
    List<GrpcServerHost> hosts = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      Path data = tmp.resolve("pod-" + i);
      CollectionCatalog catalog = CollectionCatalog.open(data);
      GrpcServerHost host =
          GrpcServerHost.start(
                  ServerSettings.ephemeral(),
                  IndexServer.services(catalog, IndexServiceConfig.embedded(data)))
              .owning(catalog);
      open.add(host);
      hosts.add(host);
      pods.add("tenbin-index-" + i + ".tenbin-index-headless:50052");
    }
    KeyRoutedChannel channel =
        IndexPlacement.open(
            pods,
            pod ->
                ClientChannels.open(
                    ServiceTarget.parse(
                        "--index-pods", "127.0.0.1:" + hosts.get(pods.indexOf(pod)).port()),
                    ClientSecurity.plaintext(),
                    64 * 1024 * 1024));
    open.add(
        () -> {
          channel.shutdownNow();
          channel.awaitTermination(10, TimeUnit.SECONDS);
        });
    return channel;
  }

  private BeirDataset collection() {
    // Few distinct words: many documents tie on score, so the tie policy is exercised too.
    return BeirDatasetReader.read(SyntheticBeir.write(tmp.resolve("beir"), 600, 12, 60, 5));
  }

  private static Map<String, List<ScoredDoc>> bm25(
      io.grpc.Channel channel, BeirDataset data, int shards) {
    RetrievalResult result =
        new Bm25Retrieval(IndexClient.of(channel))
            .withoutLatencyProbe()
            .withShards(shards)
            .run(data, "en", 50);
    return result.rankings();
  }

  @Test
  void bm25OverThreeShardsRanksAsOneCollectionScoreForScoreTieForTie() {
    BeirDataset data = collection();
    ManagedChannel index = oneIndex("one-" + UUID.randomUUID());
    Map<String, List<ScoredDoc>> one = bm25(index, data, 1);
    Map<String, List<ScoredDoc>> three = bm25(index, data, 3);
    Map<String, List<ScoredDoc>> seven = bm25(index, data, 7);
    assertThat(three).isEqualTo(one);
    assertThat(seven).isEqualTo(one);
    assertThat(one.values().stream().mapToInt(List::size).sum()).isEqualTo(60 * 50);
  }

  @Test
  void aShardedSearchReportsItsStatisticsPhaseAndMergeAsPartsOfItsSearchTime() {
    BeirDataset data = collection();
    ManagedChannel index = oneIndex("one-" + UUID.randomUUID());
    RetrievalResult one =
        new Bm25Retrieval(IndexClient.of(index)).withoutLatencyProbe().run(data, "en", 50);
    RetrievalResult three =
        new Bm25Retrieval(IndexClient.of(index))
            .withoutLatencyProbe()
            .withShards(3)
            .run(data, "en", 50);
    assertThat(one.diagnostics().asMap())
        .doesNotContainKeys("shard_statistics_ms", "shard_merge_ms");
    Map<String, Object> scatter = three.diagnostics().asMap();
    double statistics = (Double) scatter.get("shard_statistics_ms");
    double merge = (Double) scatter.get("shard_merge_ms");
    assertThat(statistics).isPositive();
    assertThat(merge).isPositive();
    assertThat(statistics + merge).isLessThan(three.searchNanos() / 1e6);
  }

  @Test
  void bm25ShardsOnThreeIndexServersRankAsOneCollection() {
    BeirDataset data = collection();
    Map<String, List<ScoredDoc>> one = bm25(oneIndex("one-" + UUID.randomUUID()), data, 1);
    assertThat(bm25(threeIndexes(), data, 3)).isEqualTo(one);
  }

  @Test
  void withoutTheCollectionsStatisticsShardsWouldScoreDifferently() {
    // The check that the statistics matter: each shard scoring with its own gives other scores.
    BeirDataset data = collection();
    ManagedChannel channel = oneIndex("own-" + UUID.randomUUID());
    Map<String, List<ScoredDoc>> one = bm25(channel, data, 1);
    try (IndexSession session =
        new IndexSession(
            IndexClient.of(channel), IndexSession.Shape.bm25("en", null).withLayout(3, 1))) {
      session.ingest(
          data.corpus().stream()
              .map(
                  doc ->
                      Document.newBuilder()
                          .setId(doc.id())
                          .setTitle(doc.title())
                          .setText(doc.text())
                          .build())
              .toList());
      String firstQuery = data.evaluatedQueryIds().getFirst();
      var shard0 =
          IndexClient.of(channel)
              .search(
                  dev.tenbin.proto.index.v1.SearchRequest.newBuilder()
                      .setCollection(
                          ShardedCollection.shardName(session.name(), 0, session.shards()))
                      .setFamily(Family.FAMILY_BM25)
                      .setTopK(5)
                      .addQueries(
                          Query.newBuilder()
                              .setId(firstQuery)
                              .setText(data.queries().get(firstQuery)))
                      .build());
      var own = shard0.getRankings(0).getDocuments(0);
      double global =
          one.get(firstQuery).stream()
              .filter(doc -> doc.docId().equals(own.getDocId()))
              .findFirst()
              .orElseThrow()
              .score();
      assertThat((double) own.getScore()).isNotEqualTo(global);
    }
  }

  private static Map<String, List<ScoredDoc>> dense(
      io.grpc.Channel channel,
      List<Document> documents,
      List<Query> queries,
      int shards,
      Similarity similarity) {
    try (IndexSession session =
        new IndexSession(
            IndexClient.of(channel), IndexSession.Shape.dense(16).withLayout(shards, 1))) {
      session.ingest(documents);
      return session.search(
          Family.FAMILY_DENSE,
          queries,
          DenseOptions.newBuilder().setSimilarity(similarity).build(),
          40);
    }
  }

  @Test
  void exactDenseOverShardsRanksAsOneCollectionInOneAndInThreeIndexes() {
    SplittableRandom random = new SplittableRandom(11);
    List<Document> documents = new ArrayList<>();
    for (int d = 0; d < 500; d++) {
      DenseVector.Builder vector = DenseVector.newBuilder();
      for (int i = 0; i < 16; i++) {
        // Coarse values: many documents tie exactly.
        vector.addValues((float) random.nextInt(-3, 4));
      }
      documents.add(Document.newBuilder().setId("doc-" + d).setText("t").setDense(vector).build());
    }
    List<Query> queries = new ArrayList<>();
    for (int q = 0; q < 20; q++) {
      DenseVector.Builder vector = DenseVector.newBuilder();
      for (int i = 0; i < 16; i++) {
        vector.addValues((float) random.nextGaussian());
      }
      queries.add(Query.newBuilder().setId("q" + q).setDense(vector).build());
    }
    ManagedChannel index = oneIndex("dense-" + UUID.randomUUID());
    KeyRoutedChannel pods = threeIndexes();
    for (Similarity similarity : List.of(Similarity.SIMILARITY_COSINE, Similarity.SIMILARITY_DOT)) {
      Map<String, List<ScoredDoc>> one = dense(index, documents, queries, 1, similarity);
      assertThat(dense(index, documents, queries, 3, similarity))
          .as(similarity.name())
          .isEqualTo(one);
      assertThat(dense(pods, documents, queries, 3, similarity))
          .as(similarity.name() + " on three indexes")
          .isEqualTo(one);
    }
  }

  private static Map<String, List<ScoredDoc>> dense(
      io.grpc.Channel channel,
      List<Document> documents,
      List<Query> queries,
      int shards,
      DenseOptions options) {
    try (IndexSession session =
        new IndexSession(
            IndexClient.of(channel), IndexSession.Shape.dense(16).withLayout(shards, 1))) {
      session.ingest(documents);
      return session.search(Family.FAMILY_DENSE, queries, options, 40);
    }
  }

  private static List<Document> gaussianDocuments(int count, int dimension, long seed) {
    SplittableRandom random = new SplittableRandom(seed);
    List<Document> documents = new ArrayList<>();
    for (int d = 0; d < count; d++) {
      DenseVector.Builder vector = DenseVector.newBuilder();
      for (int i = 0; i < dimension; i++) {
        vector.addValues((float) random.nextGaussian());
      }
      documents.add(Document.newBuilder().setId("doc-" + d).setText("t").setDense(vector).build());
    }
    return documents;
  }

  @Test
  void quantizedOverShardsRankAsOneCollectionWithAndWithoutAFloatRescore() {
    List<Document> documents = gaussianDocuments(400, 16, 5);
    List<Query> queries = new ArrayList<>();
    for (Document query : gaussianDocuments(15, 16, 6)) {
      queries.add(
          Query.newBuilder().setId("q-" + query.getId()).setDense(query.getDense()).build());
    }
    ManagedChannel index = oneIndex("int8-" + UUID.randomUUID());
    KeyRoutedChannel pods = threeIndexes();
    for (Similarity similarity : List.of(Similarity.SIMILARITY_COSINE, Similarity.SIMILARITY_DOT)) {
      for (int truncate : new int[] {0, 8}) {
        for (var quantization :
            List.of(Quantization.QUANTIZATION_INT8, Quantization.QUANTIZATION_BINARY)) {
          for (boolean rescore : new boolean[] {false, true}) {
            // A re-scored shortlist of 50 for the top 40: the shortlist must be the collection's.
            DenseOptions options =
                DenseOptions.newBuilder()
                    .setSimilarity(similarity)
                    .setTruncateDimensions(truncate)
                    .setQuantization(quantization)
                    .setRescore(rescore)
                    .setRescoreDepth(50)
                    .build();
            String variant =
                similarity + " " + quantization + " truncate " + truncate + " rescore " + rescore;
            Map<String, List<ScoredDoc>> one = dense(index, documents, queries, 1, options);
            assertThat(dense(index, documents, queries, 3, options)).as(variant).isEqualTo(one);
            assertThat(dense(pods, documents, queries, 3, options))
                .as(variant + " on three indexes")
                .isEqualTo(one);
          }
        }
      }
    }
  }

  /**
   * The top {@code k} ids of each query by brute force over every vector (dot product in double),
   * ties by id: the whole collection's exact top k, computed without the index.
   */
  private static List<Set<String>> bruteForceTopK(
      List<Document> documents, List<Query> queries, int k) {
    List<Set<String>> truth = new ArrayList<>();
    for (Query query : queries) {
      List<Float> q = query.getDense().getValuesList();
      List<Map.Entry<String, Double>> scored = new ArrayList<>();
      for (Document document : documents) {
        List<Float> d = document.getDense().getValuesList();
        double dot = 0;
        for (int i = 0; i < q.size(); i++) {
          dot += (double) q.get(i) * d.get(i);
        }
        scored.add(Map.entry(document.getId(), dot));
      }
      scored.sort(
          Map.Entry.<String, Double>comparingByValue()
              .reversed()
              .thenComparing(Map.Entry.comparingByKey()));
      Set<String> top = new HashSet<>();
      scored.subList(0, k).forEach(entry -> top.add(entry.getKey()));
      truth.add(top);
    }
    return truth;
  }

  @Test
  void approximateRecallOverShardsIsTheMergedRankingsAgainstTheWholeCollectionsExactTopK() {
    int k = 10;
    List<Document> documents = gaussianDocuments(3000, 16, 21);
    List<Query> queries = new ArrayList<>();
    for (Document query : gaussianDocuments(40, 16, 22)) {
      queries.add(
          Query.newBuilder().setId("q-" + query.getId()).setDense(query.getDense()).build());
    }
    List<Set<String>> truth = bruteForceTopK(documents, queries, k);
    // A beam of k: the graph search misses some of the exact top k, so recall is below 1.
    DenseOptions approximate =
        DenseOptions.newBuilder()
            .setSimilarity(Similarity.SIMILARITY_DOT)
            .setApproximate(true)
            .setRescoreDepth(k)
            .build();
    ManagedChannel channel = oneIndex("hnsw-" + UUID.randomUUID());
    IndexClient client = IndexClient.of(channel);
    for (int shards : new int[] {1, 3}) {
      try (IndexSession session =
          new IndexSession(client, IndexSession.Shape.dense(16).withLayout(shards, 1))) {
        session.ingest(documents);
        ShardedCollection collection = new ShardedCollection(client, session.name(), shards);
        SearchRequest request =
            SearchRequest.newBuilder()
                .setCollection(session.name())
                .setFamily(Family.FAMILY_DENSE)
                .setDense(approximate)
                .setTopK(k)
                .addAllQueries(queries)
                .build();
        SearchResponse response = collection.search(request);
        double expected = 0;
        for (int q = 0; q < queries.size(); q++) {
          Set<String> exact = truth.get(q);
          long found =
              response.getRankings(q).getDocumentsList().stream()
                  .filter(doc -> exact.contains(doc.getDocId()))
                  .count();
          expected += found / (double) k;
        }
        expected /= queries.size();
        assertThat(expected).as("K = " + shards).isLessThan(1.0).isGreaterThan(0.5);
        assertThat(response.getStats().getApproximateRecall())
            .as("K = " + shards)
            .isCloseTo(expected, org.assertj.core.data.Offset.offset(1e-12));
        assertThat(response.getExactRankingsCount()).isZero();

        // Asked for, the merged exact lists are the brute-force top k.
        SearchResponse withExact =
            collection.search(
                request.toBuilder()
                    .setDense(approximate.toBuilder().setExactRankings(true))
                    .build());
        for (int q = 0; q < queries.size(); q++) {
          Set<String> ids = new HashSet<>();
          withExact.getExactRankings(q).getDocumentsList().forEach(d -> ids.add(d.getDocId()));
          assertThat(ids).as("K = " + shards + ", query " + q).isEqualTo(truth.get(q));
        }
        assertThat(withExact.getRankingsList()).isEqualTo(response.getRankingsList());
      }
    }
  }

  @Test
  void exactRankingsWithoutApproximateIsRefusedNamingTheField() {
    ManagedChannel channel = oneIndex("exact-only-" + UUID.randomUUID());
    IndexClient client = IndexClient.of(channel);
    try (IndexSession session = new IndexSession(client, IndexSession.Shape.dense(16))) {
      session.ingest(gaussianDocuments(20, 16, 3));
      var refused =
          org.assertj.core.api.Assertions.catchThrowableOfType(
              io.grpc.StatusRuntimeException.class,
              () ->
                  client.search(
                      SearchRequest.newBuilder()
                          .setCollection(session.name())
                          .setFamily(Family.FAMILY_DENSE)
                          .setDense(
                              DenseOptions.newBuilder()
                                  .setSimilarity(Similarity.SIMILARITY_DOT)
                                  .setExactRankings(true))
                          .setTopK(5)
                          .addQueries(
                              Query.newBuilder()
                                  .setId("q")
                                  .setDense(gaussianDocuments(1, 16, 4).getFirst().getDense()))
                          .build()));
      assertThat(refused.getStatus().getCode()).isEqualTo(io.grpc.Status.Code.INVALID_ARGUMENT);
      assertThat(dev.tenbin.rpc.StatusMapper.violatedField(refused))
          .isEqualTo("dense.exact_rankings");
    }
  }

  @Test
  void int8ShardsWithTheirOwnRangesWouldScoreDifferently() {
    // The check that the ranges matter: a shard quantizing with its own ranges gives other scores.
    List<Document> documents = gaussianDocuments(400, 16, 5);
    Query query =
        Query.newBuilder()
            .setId("q")
            .setDense(gaussianDocuments(1, 16, 6).getFirst().getDense())
            .build();
    DenseOptions int8 =
        DenseOptions.newBuilder()
            .setSimilarity(Similarity.SIMILARITY_DOT)
            .setQuantization(Quantization.QUANTIZATION_INT8)
            .build();
    ManagedChannel channel = oneIndex("int8-own-" + UUID.randomUUID());
    Map<String, List<ScoredDoc>> one = dense(channel, documents, List.of(query), 1, int8);
    try (IndexSession session =
        new IndexSession(IndexClient.of(channel), IndexSession.Shape.dense(16).withLayout(3, 1))) {
      session.ingest(documents);
      var client = IndexClient.of(channel);
      var own =
          client
              .search(
                  dev.tenbin.proto.index.v1.SearchRequest.newBuilder()
                      .setCollection(
                          ShardedCollection.shardName(session.name(), 0, session.shards()))
                      .setFamily(Family.FAMILY_DENSE)
                      .setDense(int8)
                      .setTopK(5)
                      .addQueries(query)
                      .build())
              .getRankings(0)
              .getDocuments(0);
      double global =
          one.get("q").stream()
              .filter(doc -> doc.docId().equals(own.getDocId()))
              .findFirst()
              .orElseThrow()
              .score();
      assertThat((double) own.getScore()).isNotEqualTo(global);
      // The collection's ranges span the shards': wider than shard 0's own in some dimension.
      var whole =
          new ShardedCollection(client, session.name(), 3).int8Calibration(int8).orElseThrow();
      var shard0 =
          client
              .int8Calibration(ShardedCollection.shardName(session.name(), 0, 3), int8)
              .getCalibration();
      boolean wider = false;
      for (int d = 0; d < 16; d++) {
        assertThat(whole.getMinimums(d)).isLessThanOrEqualTo(shard0.getMinimums(d));
        assertThat(whole.getMaximums(d)).isGreaterThanOrEqualTo(shard0.getMaximums(d));
        wider |=
            whole.getMinimums(d) < shard0.getMinimums(d)
                || whole.getMaximums(d) > shard0.getMaximums(d);
      }
      assertThat(wider).isTrue();
    }
  }
}
