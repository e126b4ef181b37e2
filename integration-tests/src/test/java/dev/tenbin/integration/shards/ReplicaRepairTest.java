package dev.tenbin.integration.shards;

import static dev.tenbin.integration.shards.ReplicaCorpus.COSINE;
import static dev.tenbin.integration.shards.ReplicaCorpus.denseQueries;
import static dev.tenbin.integration.shards.ReplicaCorpus.documents;
import static dev.tenbin.integration.shards.ReplicaCorpus.textQueries;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tenbin.client.index.IndexClient;
import dev.tenbin.client.index.ReplicaRepair;
import dev.tenbin.client.index.ShardedCollection;
import dev.tenbin.eval.retrieval.IndexSession;
import dev.tenbin.proto.index.v1.Document;
import dev.tenbin.proto.index.v1.Family;
import dev.tenbin.proto.index.v1.GetCollectionDigestResponse;
import dev.tenbin.proto.index.v1.IngestRequest;
import dev.tenbin.scoring.metrics.ScoredDoc;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
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

  private ThreeIndexPods pods;
  private IndexClient index;

  @BeforeEach
  void startThreePods() throws IOException {
    pods = new ThreeIndexPods(tmp);
    index = pods.index();
  }

  @AfterEach
  void stop() throws Exception {
    pods.close();
  }

  /** The index of the pod of rank {@code rank} in the ranking of the session's collection. */
  private int podAtRank(IndexSession session, int rank) {
    return pods.atRank(session.name(), rank);
  }

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
                while (pods.pod(victim).served("Ingest", copyOnVictim) == 0
                    && System.nanoTime() < until) {
                  java.util.concurrent.locks.LockSupport.parkNanos(10_000_000);
                }
                pods.pod(victim).kill();
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
      IndexPod back = pods.restart(victim, tmp.resolve("pod-" + victim), UnaryOperator.identity());
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
      pods.pod(victim).kill();
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
      pods.restart(victim, tmp.resolve("replacement"), damage);

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
      long searchedBefore = pods.pod(victim).served("Search", collection.replicaName(0, 1));
      assertThat(bm25(replicated)).isEqualTo(bm25);
      assertThat(dense(replicated)).isEqualTo(dense);
      assertThat(pods.pod(victim).served("Search", collection.replicaName(0, 1)))
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
      pods.pod(podAtRank(replicated, 1)).kill();
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
