package dev.tenbin.integration.shards;

import static dev.tenbin.integration.shards.ReplicaCorpus.COSINE;
import static dev.tenbin.integration.shards.ReplicaCorpus.denseQueries;
import static dev.tenbin.integration.shards.ReplicaCorpus.documents;
import static dev.tenbin.integration.shards.ReplicaCorpus.runningAt;
import static dev.tenbin.integration.shards.ReplicaCorpus.textQueries;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tenbin.client.index.IndexClient;
import dev.tenbin.client.index.ShardedCollection;
import dev.tenbin.eval.retrieval.IndexSession;
import dev.tenbin.proto.index.v1.Document;
import dev.tenbin.proto.index.v1.Family;
import dev.tenbin.proto.index.v1.Query;
import dev.tenbin.scoring.metrics.ScoredDoc;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Replicas of shards on three real index servers as the pods of one StatefulSet: two shards of two
 * replicas rank as one collection; a server killed (its connections cut, no drain) after the
 * ingest, between searches or in the middle of the ingest is routed around with the same rankings
 * and no failed call; a shard that loses both replicas fails naming itself.
 */
class ReplicatedCollectionTest {
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

  /** The pod holding a copy (an index collection) by placement. */
  private IndexPod podOf(String copy) {
    return pods.holding(copy);
  }

  /** The pod of rank {@code rank} in the ranking of the session's collection. */
  private IndexPod podAtRank(IndexSession session, int rank) {
    return pods.pod(pods.atRank(session.name(), rank));
  }

  private IndexSession session(int shards, int replicas) {
    return new IndexSession(index, IndexSession.Shape.dense(16).withLayout(shards, replicas));
  }

  private static Map<String, List<ScoredDoc>> bm25(IndexSession session, List<Query> queries) {
    return session.search(Family.FAMILY_BM25, queries, null, 50);
  }

  private static Map<String, List<ScoredDoc>> dense(IndexSession session, List<Query> queries) {
    return session.search(Family.FAMILY_DENSE, queries, COSINE, 40);
  }

  /** BM25 and exact dense rankings of one collection of one replica, the reference. */
  private record Reference(Map<String, List<ScoredDoc>> bm25, Map<String, List<ScoredDoc>> dense) {}

  private Reference reference(List<Document> documents) {
    try (IndexSession one = session(1, 1)) {
      assertThat(one.ingest(documents)).isEqualTo(documents.size());
      Reference reference = new Reference(bm25(one, textQueries()), dense(one, denseQueries()));
      assertThat(reference.bm25().values().stream().mapToInt(List::size).sum()).isEqualTo(30 * 50);
      return reference;
    }
  }

  @Test
  void twoShardsOfTwoReplicasOnThreeServersRankAsOneCollectionAndSpreadTheReads() {
    List<Document> documents = documents(800);
    Reference one = reference(documents);
    try (IndexSession replicated = session(2, 2)) {
      assertThat(replicated.ingest(documents)).isEqualTo(documents.size());
      ShardedCollection collection = replicated.collection();
      for (int s = 0; s < 2; s++) {
        List<IndexPod> holders = new ArrayList<>();
        for (int r = 0; r < 2; r++) {
          String copy = collection.replicaName(s, r);
          IndexPod holder = podOf(copy);
          holders.add(holder);
          // Created and filled on the pod placement names, and on no other.
          for (IndexPod pod : pods.all()) {
            assertThat(pod.served("CreateCollection", copy)).isEqualTo(pod == holder ? 1 : 0);
            assertThat(pod.served("Ingest", copy) > 0).isEqualTo(pod == holder);
          }
        }
        assertThat(holders.get(0)).as("the replicas of shard " + s).isNotSameAs(holders.get(1));
      }
      for (int round = 0; round < 2; round++) {
        assertThat(bm25(replicated, textQueries())).isEqualTo(one.bm25());
        assertThat(dense(replicated, denseQueries())).isEqualTo(one.dense());
      }
      // Every replica answered searches: the reads were spread over them.
      for (String copy : collection.collectionNames()) {
        assertThat(podOf(copy).served("Search", copy)).as(copy).isPositive();
      }
      assertThat(collection.liveReplicas(0)).containsExactly(0, 1);
    }
    try (IndexSession threeCopies = session(1, 3)) {
      assertThat(threeCopies.ingest(documents)).isEqualTo(documents.size());
      assertThat(bm25(threeCopies, textQueries())).isEqualTo(one.bm25());
      assertThat(dense(threeCopies, denseQueries())).isEqualTo(one.dense());
    }
  }

  @Test
  void aServerKilledAfterTheIngestIsRoutedAroundWithTheSameRankings() {
    List<Document> documents = documents(800);
    Reference one = reference(documents);
    List<Query> text = textQueries();
    try (IndexSession replicated = session(2, 2)) {
      replicated.ingest(documents);
      // Killed before any search: the pod of rank 1 holds shard 0's replica 1 and shard 1's
      // replica 0 (ranks shard + replica).
      IndexPod killed = podAtRank(replicated, 1);
      killed.kill();
      assertThat(dense(replicated, denseQueries())).isEqualTo(one.dense());
      assertThat(bm25(replicated, text.subList(0, 15))).isEqualTo(subMap(one.bm25(), text, 0, 15));
      assertThat(bm25(replicated, text.subList(15, 30)))
          .isEqualTo(subMap(one.bm25(), text, 15, 30));
      ShardedCollection collection = replicated.collection();
      assertThat(collection.liveReplicas(0)).containsExactly(0);
      assertThat(collection.liveReplicas(1)).containsExactly(1);
    }
  }

  @Test
  void aServerKilledBetweenTwoSearchesIsRoutedAroundWithTheSameRankings() {
    List<Document> documents = documents(800);
    Reference one = reference(documents);
    List<Query> text = textQueries();
    try (IndexSession replicated = session(2, 2)) {
      replicated.ingest(documents);
      assertThat(bm25(replicated, text.subList(0, 15))).isEqualTo(subMap(one.bm25(), text, 0, 15));
      // Killed between two searches: the next ones go to the other replicas.
      IndexPod killed = podAtRank(replicated, 0);
      killed.kill();
      assertThat(bm25(replicated, text.subList(15, 30)))
          .isEqualTo(subMap(one.bm25(), text, 15, 30));
      assertThat(dense(replicated, denseQueries())).isEqualTo(one.dense());
      // The pod of rank 0 held shard 0's replica 0 only.
      assertThat(replicated.collection().liveReplicas(0)).containsExactly(1);
      assertThat(replicated.collection().liveReplicas(1)).containsExactly(0, 1);
    }
  }

  private static Map<String, List<ScoredDoc>> subMap(
      Map<String, List<ScoredDoc>> rankings, List<Query> queries, int from, int to) {
    Map<String, List<ScoredDoc>> part = new java.util.LinkedHashMap<>();
    for (Query query : queries.subList(from, to)) {
      part.put(query.getId(), rankings.get(query.getId()));
    }
    return part;
  }

  @Test
  void aServerKilledInTheMiddleOfTheIngestLeavesItsReplicasOutAndTheIngestCompletes() {
    // Over four batches per shard's stream: the kill comes after some were acknowledged.
    int batch = IndexSession.INGEST_BATCH;
    List<Document> documents = documents(8 * batch);
    Reference one = reference(documents);
    try (IndexSession replicated = session(2, 2)) {
      IndexPod victim = podAtRank(replicated, 1);
      String copyOnVictim = replicated.collection().replicaName(0, 1);
      // Each shard's streams have taken at least 3.5 batches less 2,048 documents (what waits per
      // stream) when the one before the last batch is handed out: their first batch is on its
      // way. Killed once it arrived.
      Iterator<Document> killing =
          runningAt(documents, 7 * batch, () -> victim.killOnceIngesting(copyOnVictim));
      assertThat(replicated.ingest(killing)).isEqualTo(documents.size());
      assertThat(victim.served("Ingest", copyOnVictim)).isPositive();
      ShardedCollection collection = replicated.collection();
      assertThat(collection.liveReplicas(0)).containsExactly(0);
      assertThat(collection.liveReplicas(1)).containsExactly(1);
      assertThat(bm25(replicated, textQueries())).isEqualTo(one.bm25());
      assertThat(dense(replicated, denseQueries())).isEqualTo(one.dense());
    }
  }

  @Test
  void aShardThatLosesBothReplicasFailsTheSearchNamingTheShard() {
    List<Document> documents = documents(300);
    try (IndexSession replicated = session(2, 2)) {
      replicated.ingest(documents);
      // Shard 0 is on ranks 0 and 1.
      podAtRank(replicated, 0).kill();
      podAtRank(replicated, 1).kill();
      assertThatThrownBy(() -> bm25(replicated, textQueries()))
          .isInstanceOfSatisfying(
              StatusRuntimeException.class,
              e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE))
          .hasMessageContaining(
              "every replica of shard 0 of 2 of the collection " + replicated.name());
    }
  }
}
