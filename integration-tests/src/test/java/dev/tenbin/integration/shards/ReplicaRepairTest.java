package dev.tenbin.integration.shards;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenbin.client.index.IndexClient;
import dev.tenbin.client.index.ReplicaRepair;
import dev.tenbin.client.index.ShardedCollection;
import dev.tenbin.eval.retrieval.IndexSession;
import dev.tenbin.eval.services.IndexPlacement;
import dev.tenbin.proto.common.v1.DenseVector;
import dev.tenbin.proto.common.v1.Similarity;
import dev.tenbin.proto.index.v1.DenseOptions;
import dev.tenbin.proto.index.v1.Document;
import dev.tenbin.proto.index.v1.Family;
import dev.tenbin.proto.index.v1.GetCollectionDigestResponse;
import dev.tenbin.proto.index.v1.IngestRequest;
import dev.tenbin.proto.index.v1.Query;
import dev.tenbin.rpc.ClientChannels;
import dev.tenbin.rpc.ClientSecurity;
import dev.tenbin.rpc.KeyRoutedChannel;
import dev.tenbin.rpc.ServiceTarget;
import dev.tenbin.scoring.metrics.ScoredDoc;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Lost replicas rebuilt from their peers on three real index servers on loopback: a pod killed in
 * the middle of a job comes back at the same address (with the partial copies it held, or empty),
 * the repair rebuilds its replicas from their live peers and readmits them once their digests equal
 * their peers', and they serve reads again with the rankings of one collection; a copy damaged on
 * its way is refused and stays out.
 */
class ReplicaRepairTest {
  @TempDir Path tmp;

  /** The chart's pod names for a three-pod index StatefulSet: what placement hashes. */
  private static final List<String> POD_NAMES =
      List.of(
          "tenbin-index-0.tenbin-index-headless:50052",
          "tenbin-index-1.tenbin-index-headless:50052",
          "tenbin-index-2.tenbin-index-headless:50052");

  private final List<IndexPod> pods = new ArrayList<>();
  private final List<Integer> ports = new ArrayList<>();
  private KeyRoutedChannel channel;
  private IndexClient index;

  @BeforeEach
  void startThreePods() throws IOException {
    for (int i = 0; i < POD_NAMES.size(); i++) {
      IndexPod pod = new IndexPod(tmp.resolve("pod-" + i));
      pods.add(pod);
      ports.add(pod.port());
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
  void stop() throws Exception {
    channel.shutdownNow();
    channel.awaitTermination(10, TimeUnit.SECONDS);
    for (IndexPod pod : pods) {
      pod.close();
    }
  }

  /** The index of the pod of rank {@code rank} in the ranking of the session's collection. */
  private int podAtRank(IndexSession session, int rank) {
    return POD_NAMES.indexOf(channel.placement().nodeOf(session.name(), rank));
  }

  /**
   * Pod {@code at} back at its address after it was killed, serving {@code data}, its requests
   * passed through {@code requests}; the client's connection to it tried again at once.
   */
  private IndexPod restart(int at, Path data, UnaryOperator<Object> requests) throws Exception {
    pods.get(at).close();
    IndexPod back = new IndexPod(data, ports.get(at), requests);
    pods.set(at, back);
    channel.resetConnectBackoff();
    return back;
  }

  private static final String[] WORDS = {
    "alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta", "iota", "kappa", "lambda",
    "mu", "nu", "xi", "omicron", "pi", "rho", "sigma", "tau", "upsilon", "phi", "chi", "psi",
    "omega"
  };

  private static String words(SplittableRandom random, int count) {
    StringBuilder text = new StringBuilder();
    for (int i = 0; i < count; i++) {
      text.append(i == 0 ? "" : " ").append(WORDS[random.nextInt(WORDS.length)]);
    }
    return text.toString();
  }

  /** Documents with a text and a coarse 16-dimensional vector (exact ties in both families). */
  private static List<Document> documents(int count) {
    SplittableRandom random = new SplittableRandom(7);
    List<Document> documents = new ArrayList<>();
    for (int d = 0; d < count; d++) {
      DenseVector.Builder vector = DenseVector.newBuilder();
      for (int i = 0; i < 16; i++) {
        vector.addValues((float) random.nextInt(-3, 4));
      }
      documents.add(
          Document.newBuilder()
              .setId("doc-" + d)
              .setTitle(words(random, 2))
              .setText(words(random, 1 + random.nextInt(12)))
              .setDense(vector)
              .build());
    }
    return documents;
  }

  private static List<Query> textQueries() {
    SplittableRandom random = new SplittableRandom(13);
    List<Query> queries = new ArrayList<>();
    for (int q = 0; q < 30; q++) {
      queries.add(Query.newBuilder().setId("q" + q).setText(words(random, 3)).build());
    }
    return queries;
  }

  private static List<Query> denseQueries() {
    SplittableRandom random = new SplittableRandom(17);
    List<Query> queries = new ArrayList<>();
    for (int q = 0; q < 20; q++) {
      DenseVector.Builder vector = DenseVector.newBuilder();
      for (int i = 0; i < 16; i++) {
        vector.addValues((float) random.nextGaussian());
      }
      queries.add(Query.newBuilder().setId("q" + q).setDense(vector).build());
    }
    return queries;
  }

  private static final DenseOptions COSINE =
      DenseOptions.newBuilder().setSimilarity(Similarity.SIMILARITY_COSINE).build();

  private IndexSession session(int shards, int replicas) {
    return new IndexSession(index, "en", 16, 0, 0, null, shards, replicas);
  }

  private static Map<String, List<ScoredDoc>> bm25(IndexSession session) {
    return session.search(Family.FAMILY_BM25, textQueries(), null, 50);
  }

  private static Map<String, List<ScoredDoc>> dense(IndexSession session) {
    return session.search(Family.FAMILY_DENSE, denseQueries(), COSINE, 40);
  }

  /** Every replica of {@code collection} is live. */
  private static void assertEveryReplicaLive(ShardedCollection collection) {
    for (int s = 0; s < collection.shards(); s++) {
      assertThat(collection.liveReplicas(s)).as("shard " + s).hasSize(collection.replicas());
    }
  }

  /** Replica {@code replica} of shard {@code shard} has the digest of every other replica. */
  private void assertSameDigestAsItsPeers(ShardedCollection collection, int shard, int replica) {
    GetCollectionDigestResponse rebuilt =
        index.collectionDigest(collection.replicaName(shard, replica));
    assertThat(rebuilt.getDocumentCount()).isPositive();
    for (int r = 0; r < collection.replicas(); r++) {
      assertThat(index.collectionDigest(collection.replicaName(shard, r))).isEqualTo(rebuilt);
    }
  }

  @Test
  void aPodKilledInTheMiddleOfTheIngestComesBackRebuiltAndServesWithTheSameRankings()
      throws Exception {
    // Over four batches of 1,000 per shard's stream: the kill comes after some were acknowledged.
    List<Document> documents = documents(8_000);
    try (IndexSession replicated = session(2, 2)) {
      int victim = podAtRank(replicated, 1);
      String copyOnVictim = replicated.collection().replicaName(0, 1);
      Iterator<Document> all = documents.iterator();
      int[] handed = {0};
      Iterator<Document> killing =
          new Iterator<>() {
            @Override
            public boolean hasNext() {
              return all.hasNext();
            }

            @Override
            public Document next() {
              if (++handed[0] == 7_000) {
                long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                while (pods.get(victim).served("Ingest", copyOnVictim) == 0
                    && System.nanoTime() < until) {
                  java.util.concurrent.locks.LockSupport.parkNanos(10_000_000);
                }
                pods.get(victim).kill();
              }
              return all.next();
            }
          };
      assertThat(replicated.ingest(killing)).isEqualTo(documents.size());
      ShardedCollection collection = replicated.collection();
      // The pod of rank 1 held shard 0's replica 1 and shard 1's replica 0 (ranks shard + replica).
      assertThat(collection.liveReplicas(0)).containsExactly(0);
      assertThat(collection.liveReplicas(1)).containsExactly(1);
      Map<String, List<ScoredDoc>> bm25 = bm25(replicated);
      Map<String, List<ScoredDoc>> dense = dense(replicated);

      // Back at its address with the partial copies it held when it was killed.
      IndexPod back = restart(victim, tmp.resolve("pod-" + victim), UnaryOperator.identity());
      assertThat(back.catalog.get(copyOnVictim, "collection").size())
          .as("the partial copy the pod came back with")
          .isLessThan(documents.size());
      List<ReplicaRepair.Outcome> outcomes = replicated.repairLostReplicas();

      assertThat(outcomes)
          .extracting(ReplicaRepair.Outcome::shard, ReplicaRepair.Outcome::replica)
          .containsExactly(
              org.assertj.core.groups.Tuple.tuple(0, 1), org.assertj.core.groups.Tuple.tuple(1, 0));
      assertThat(outcomes).allMatch(ReplicaRepair.Outcome::readmitted, "readmitted");
      assertThat(outcomes.stream().mapToLong(ReplicaRepair.Outcome::documents).sum())
          .isEqualTo(documents.size());
      assertEveryReplicaLive(collection);
      assertSameDigestAsItsPeers(collection, 0, 1);
      assertSameDigestAsItsPeers(collection, 1, 0);
      assertThat(outcomes.getFirst().digest())
          .isEqualTo(index.collectionDigest(collection.replicaName(0, 0)).getDigest());

      // Reads reach the rebuilt replicas again (taken in turn), with the same rankings.
      for (int round = 0; round < 2; round++) {
        assertThat(bm25(replicated)).isEqualTo(bm25);
        assertThat(dense(replicated)).isEqualTo(dense);
      }
      assertThat(back.served("Search", collection.replicaName(0, 1))).isPositive();
      assertThat(back.served("Search", collection.replicaName(1, 0))).isPositive();
      assertThat(replicated.repairLostReplicas()).isEmpty();
    }
  }

  @Test
  void aCopyDamagedOnItsWayIsRefusedAndStaysOutUntilARepairCopiesItWhole() throws Exception {
    List<Document> documents = documents(600);
    try (IndexSession replicated = session(2, 2)) {
      replicated.ingest(documents);
      ShardedCollection collection = replicated.collection();
      Map<String, List<ScoredDoc>> bm25 = bm25(replicated);
      Map<String, List<ScoredDoc>> dense = dense(replicated);
      int victim = podAtRank(replicated, 1);
      pods.get(victim).kill();
      assertThat(bm25(replicated)).isEqualTo(bm25);
      assertThat(collection.liveReplicas(0)).containsExactly(0);
      assertThat(collection.liveReplicas(1)).containsExactly(1);

      // A replacement pod at the same address, empty, that receives one document of shard 0
      // damaged: its text changed on the way in.
      String damagedId =
          documents.stream()
              .map(Document::getId)
              .filter(id -> ShardedCollection.shardOf(id, 2) == 0)
              .skip(100)
              .findFirst()
              .orElseThrow();
      AtomicBoolean damaging = new AtomicBoolean(true);
      UnaryOperator<Object> damage =
          message -> {
            if (!damaging.get() || !(message instanceof IngestRequest batch)) {
              return message;
            }
            IngestRequest.Builder changed = batch.toBuilder();
            for (int d = 0; d < batch.getDocumentsCount(); d++) {
              if (batch.getDocuments(d).getId().equals(damagedId)) {
                changed.setDocuments(
                    d, batch.getDocuments(d).toBuilder().setText("damaged on its way"));
              }
            }
            return changed.build();
          };
      restart(victim, tmp.resolve("replacement"), damage);

      List<ReplicaRepair.Outcome> outcomes =
          new ReplicaRepair(index).repairLostReplicas(collection);

      assertThat(outcomes)
          .extracting(ReplicaRepair.Outcome::shard, ReplicaRepair.Outcome::result)
          .containsExactly(
              org.assertj.core.groups.Tuple.tuple(0, ReplicaRepair.Result.REFUSED),
              org.assertj.core.groups.Tuple.tuple(1, ReplicaRepair.Result.READMITTED));
      ReplicaRepair.Outcome refused = outcomes.getFirst();
      // Every document arrived, one of them different: the digest tells.
      assertThat(refused.documents())
          .isEqualTo(index.collectionDigest(collection.replicaName(0, 0)).getDocumentCount());
      assertThat(refused.digest())
          .isNotEqualTo(index.collectionDigest(collection.replicaName(0, 0)).getDigest());
      assertThat(refused.reason()).contains("differs from its peer's");
      assertThat(collection.liveReplicas(0)).containsExactly(0);
      assertThat(collection.liveReplicas(1)).containsExactly(0, 1);
      // The refused replica answers no read: the rankings stay those of the whole copies.
      long searchedBefore = pods.get(victim).served("Search", collection.replicaName(0, 1));
      assertThat(bm25(replicated)).isEqualTo(bm25);
      assertThat(dense(replicated)).isEqualTo(dense);
      assertThat(pods.get(victim).served("Search", collection.replicaName(0, 1)))
          .isEqualTo(searchedBefore);

      // Once the copy arrives whole, the next repair readmits it.
      damaging.set(false);
      List<ReplicaRepair.Outcome> again = new ReplicaRepair(index).repairLostReplicas(collection);
      assertThat(again)
          .extracting(ReplicaRepair.Outcome::shard, ReplicaRepair.Outcome::result)
          .containsExactly(org.assertj.core.groups.Tuple.tuple(0, ReplicaRepair.Result.READMITTED));
      assertEveryReplicaLive(collection);
      assertSameDigestAsItsPeers(collection, 0, 1);
      assertThat(bm25(replicated)).isEqualTo(bm25);
      assertThat(dense(replicated)).isEqualTo(dense);
    }
  }

  @Test
  void aPodThatDoesNotAnswerLeavesItsReplicasOutForALaterRepair() {
    List<Document> documents = documents(200);
    try (IndexSession replicated = session(1, 2)) {
      replicated.ingest(documents);
      ShardedCollection collection = replicated.collection();
      Map<String, List<ScoredDoc>> bm25 = bm25(replicated);
      pods.get(podAtRank(replicated, 1)).kill();
      // Two searches: the replicas are taken in turn, so one of them meets the killed pod.
      assertThat(bm25(replicated)).isEqualTo(bm25);
      assertThat(bm25(replicated)).isEqualTo(bm25);
      assertThat(collection.liveReplicas(0)).containsExactly(0);

      List<ReplicaRepair.Outcome> outcomes = replicated.repairLostReplicas();

      assertThat(outcomes)
          .extracting(ReplicaRepair.Outcome::result)
          .containsExactly(ReplicaRepair.Result.UNREACHABLE);
      assertThat(outcomes.getFirst().reason()).contains("UNAVAILABLE");
      assertThat(collection.liveReplicas(0)).containsExactly(0);
      assertThat(bm25(replicated)).isEqualTo(bm25);
    }
  }
}
