package dev.tenbin.client.index;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tenbin.client.CallPolicy;
import dev.tenbin.client.TestServers;
import dev.tenbin.proto.common.v1.Ranking;
import dev.tenbin.proto.common.v1.ScoredDocument;
import dev.tenbin.proto.index.v1.Bm25Statistics;
import dev.tenbin.proto.index.v1.Family;
import dev.tenbin.proto.index.v1.GetDocumentsRequest;
import dev.tenbin.proto.index.v1.GetDocumentsResponse;
import dev.tenbin.proto.index.v1.GetTermStatisticsRequest;
import dev.tenbin.proto.index.v1.GetTermStatisticsResponse;
import dev.tenbin.proto.index.v1.IndexServiceGrpc;
import dev.tenbin.proto.index.v1.Query;
import dev.tenbin.proto.index.v1.SearchRequest;
import dev.tenbin.proto.index.v1.SearchResponse;
import dev.tenbin.proto.index.v1.SearchStats;
import dev.tenbin.proto.index.v1.StoredDocument;
import dev.tenbin.proto.index.v1.TermStatistics;
import dev.tenbin.rpc.Rendezvous;
import io.grpc.stub.StreamObserver;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * {@link ShardedCollection}'s placement (names, the FNV-1a hash of the id), its merge order (score
 * descending, ties by id in the family's order), and a scatter-gather over a fake index service
 * holding the shards.
 */
class ShardedCollectionTest {
  @Test
  void shardNamesAndTheirParts() {
    assertThat(ShardedCollection.shardName("docs", 0, 1)).isEqualTo("docs");
    assertThat(ShardedCollection.shardName("docs", 2, 3)).isEqualTo("docs.shard-2-of-3");
    assertThatThrownBy(() -> ShardedCollection.shardName("docs", 3, 3))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> ShardedCollection.shardName("docs", -1, 3))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new ShardedCollection(null, "docs", 0))
        .isInstanceOf(IllegalArgumentException.class);

    assertThat(ShardedCollection.Shard.of("my.docs.shard-2-of-3"))
        .contains(new ShardedCollection.Shard("my.docs", 2, 3));
    for (String notAShard :
        new String[] {
          "docs",
          "docs.shard-3-of-3",
          "docs.shard-0-of-1",
          "docs.shard-x-of-3",
          "docs.shard-99999999999-of-3"
        }) {
      assertThat(ShardedCollection.Shard.of(notAShard)).as(notAShard).isEmpty();
    }
    ShardedCollection sharded = new ShardedCollection(null, "docs", 3);
    assertThat(sharded.shardNames())
        .containsExactly("docs.shard-0-of-3", "docs.shard-1-of-3", "docs.shard-2-of-3");
    for (String name : sharded.shardNames()) {
      ShardedCollection.Shard shard = ShardedCollection.Shard.of(name).orElseThrow();
      assertThat(ShardedCollection.shardName(shard.collection(), shard.shard(), shard.shards()))
          .isEqualTo(name);
    }
  }

  @Test
  void replicaNamesAndTheirParts() {
    assertThat(ShardedCollection.replicaName("docs", 1, 2, 0, 1)).isEqualTo("docs.shard-1-of-2");
    assertThat(ShardedCollection.replicaName("docs", 1, 2, 1, 2))
        .isEqualTo("docs.shard-1-of-2.replica-1-of-2");
    assertThat(ShardedCollection.replicaName("docs", 0, 1, 2, 3)).isEqualTo("docs.replica-2-of-3");
    assertThatThrownBy(() -> ShardedCollection.replicaName("docs", 0, 1, 3, 3))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new ShardedCollection(null, "docs", 2, 0))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new ShardedCollection(null, "docs", 2, 9))
        .isInstanceOf(IllegalArgumentException.class);

    ShardedCollection replicated = new ShardedCollection(null, "docs", 2, 2);
    assertThat(replicated.collectionNames())
        .containsExactly(
            "docs.shard-0-of-2.replica-0-of-2",
            "docs.shard-0-of-2.replica-1-of-2",
            "docs.shard-1-of-2.replica-0-of-2",
            "docs.shard-1-of-2.replica-1-of-2");
    for (String name : replicated.collectionNames()) {
      ShardedCollection.Copy copy = ShardedCollection.Copy.of(name);
      assertThat(
              ShardedCollection.replicaName(
                  copy.collection(), copy.shard(), copy.shards(), copy.replica(), copy.replicas()))
          .isEqualTo(name);
    }
    assertThat(ShardedCollection.Copy.of("my.docs.shard-1-of-2.replica-1-of-3"))
        .isEqualTo(new ShardedCollection.Copy("my.docs", 1, 2, 1, 3));
    assertThat(ShardedCollection.Copy.of("docs.replica-2-of-3"))
        .isEqualTo(new ShardedCollection.Copy("docs", 0, 1, 2, 3));
    assertThat(ShardedCollection.Copy.of("docs.shard-2-of-3"))
        .isEqualTo(new ShardedCollection.Copy("docs", 2, 3, 0, 1));
    for (String plain :
        new String[] {
          "docs", "docs.replica-2-of-2", "docs.replica-0-of-1", "docs.replica-x-of-2"
        }) {
      assertThat(ShardedCollection.Copy.of(plain))
          .as(plain)
          .isEqualTo(new ShardedCollection.Copy(plain, 0, 1, 0, 1));
    }
    assertThat(ShardedCollection.Copy.of("docs.shard-1-of-2.replica-1-of-2").rank()).isEqualTo(2);
  }

  /** The chart's pod names for a three-pod index StatefulSet: what placement hashes. */
  private static final List<String> THREE_PODS =
      List.of(
          "tenbin-index-0.tenbin-index-headless:50052",
          "tenbin-index-1.tenbin-index-headless:50052",
          "tenbin-index-2.tenbin-index-headless:50052");

  /** The pod (its number) a copy lives on: its collection's rendezvous ranking at its rank. */
  private static int podOf(Rendezvous placement, String name) {
    ShardedCollection.Copy copy = ShardedCollection.Copy.of(name);
    String pod = placement.nodeOf(copy.collection(), copy.rank());
    return Integer.parseInt(pod.substring("tenbin-index-".length(), pod.indexOf('.')));
  }

  @Test
  void replicasOfAShardAreOnConsecutiveRanksOfTheCollectionsRankingPinned() {
    // "docs" ranks the pods 1, 2, 0 (SHA-256 weights, RendezvousTest).
    Rendezvous placement = new Rendezvous(THREE_PODS);
    assertThat(placement.ranking("docs"))
        .containsExactly(THREE_PODS.get(1), THREE_PODS.get(2), THREE_PODS.get(0));
    List<Integer> pods = new ArrayList<>();
    for (String name : new ShardedCollection(null, "docs", 2, 2).collectionNames()) {
      pods.add(podOf(placement, name));
    }
    // shard 0 on ranks 0 and 1, shard 1 on ranks 1 and 2.
    assertThat(pods).containsExactly(1, 2, 2, 0);
    pods.clear();
    for (String name : new ShardedCollection(null, "docs", 2, 3).collectionNames()) {
      pods.add(podOf(placement, name));
    }
    assertThat(pods).containsExactly(1, 2, 0, 2, 0, 1);
    // One replica: where the unreplicated shards always were.
    assertThat(podOf(placement, "docs.shard-1-of-2")).isEqualTo(2);
    assertThat(podOf(placement, "docs.shard-1-of-2.replica-0-of-2")).isEqualTo(2);
  }

  @Test
  void theReplicasOfEveryShardAreOnDistinctPodsWhileThereAreEnoughWhateverTheListsOrder() {
    for (int podCount = 1; podCount <= 5; podCount++) {
      List<String> pods = new ArrayList<>();
      for (int i = 0; i < podCount; i++) {
        pods.add("tenbin-index-" + i + ".tenbin-index-headless:50052");
      }
      Rendezvous placement = new Rendezvous(pods);
      List<String> reversed = new ArrayList<>(pods);
      Collections.reverse(reversed);
      Rendezvous other = new Rendezvous(reversed);
      for (int c = 0; c < 40; c++) {
        String name = "eval-" + c;
        for (int shards = 1; shards <= 4; shards++) {
          for (int replicas = 1; replicas <= Math.min(podCount, 4); replicas++) {
            ShardedCollection collection = new ShardedCollection(null, name, shards, replicas);
            for (int s = 0; s < shards; s++) {
              List<Integer> of = new ArrayList<>();
              for (int r = 0; r < replicas; r++) {
                String copy = collection.replicaName(s, r);
                of.add(podOf(placement, copy));
                assertThat(podOf(other, copy)).isEqualTo(of.getLast());
              }
              assertThat(of.stream().distinct().count())
                  .as(name + " shard " + s + " of " + shards + " x" + replicas + " on " + podCount)
                  .isEqualTo(replicas);
            }
          }
        }
      }
    }
  }

  @Test
  void withFewerPodsThanReplicasTheRanksWrapAroundAndReplicasSharePods() {
    Rendezvous placement = new Rendezvous(THREE_PODS.subList(0, 2));
    ShardedCollection collection = new ShardedCollection(null, "docs", 1, 3);
    assertThat(podOf(placement, collection.replicaName(0, 2)))
        .isEqualTo(podOf(placement, collection.replicaName(0, 0)))
        .isNotEqualTo(podOf(placement, collection.replicaName(0, 1)));
  }

  @Test
  void aDocumentsShardIsTheFnv1aHashOfItsUtf8IdModuloTheShards() {
    // FNV-1a 64 test vectors: "a" and "foobar"; "é" hashed over its UTF-8 bytes C3 A9.
    Map<String, Long> hashes =
        Map.of("a", 0xaf63dc4c8601ec8cL, "foobar", 0x85944171f73967e8L, "é", 0x0ac21707b7181e01L);
    hashes.forEach(
        (id, hash) -> {
          for (int shards = 1; shards <= 7; shards++) {
            assertThat(ShardedCollection.shardOf(id, shards))
                .as(id + " of " + shards)
                .isEqualTo((int) Long.remainderUnsigned(hash, shards));
          }
        });
    int[] counts = new int[4];
    for (int i = 0; i < 4000; i++) {
      counts[ShardedCollection.shardOf("doc-" + i, 4)]++;
    }
    for (int count : counts) {
      assertThat(count).as("documents of a shard, of 4000").isBetween(850, 1150);
    }
  }

  private static ScoredDocument doc(String id, float score) {
    return ScoredDocument.newBuilder().setDocId(id).setScore(score).build();
  }

  @Test
  void mergeRanksByScoreThenIdAndKeepsTheTopK() {
    List<List<ScoredDocument>> lists =
        List.of(
            List.of(doc("d", 3), doc("b", 2), doc("z", 1)),
            List.of(doc("c", 3), doc("a", 2)),
            List.of(doc("e", 2.5f)));
    Ranking ranking =
        ShardedCollection.merge("q", lists, ShardedCollection.order(Family.FAMILY_DENSE), 5);
    assertThat(ranking.getQueryId()).isEqualTo("q");
    assertThat(ranking.getDocumentsList())
        .extracting(ScoredDocument::getDocId)
        .containsExactly("c", "d", "e", "a", "b");
    assertThat(ranking.getDocumentsList())
        .extracting(ScoredDocument::getRank)
        .containsExactly(1, 2, 3, 4, 5);
    assertThat(
            ShardedCollection.merge("q", lists, ShardedCollection.order(Family.FAMILY_DENSE), 100)
                .getDocumentsCount())
        .as("fewer than k documents in all: every one")
        .isEqualTo(6);
  }

  @Test
  void bm25TiesAreInUtf8ByteOrderAndTheOthersInJavaStringOrder() {
    // U+FF5E is one UTF-16 unit (FF5E) but three UTF-8 bytes (EF BD 9E); U+1F600 is a surrogate
    // pair (D83D DE00) and four bytes (F0 9F 98 80): the two orders disagree.
    String fullwidthTilde = "\uFF5E";
    String emoji = "\uD83D\uDE00";
    List<List<ScoredDocument>> lists =
        List.of(List.of(doc(fullwidthTilde, 1)), List.of(doc(emoji, 1)));
    assertThat(
            ShardedCollection.merge("q", lists, ShardedCollection.order(Family.FAMILY_BM25), 2)
                .getDocumentsList())
        .extracting(ScoredDocument::getDocId)
        .containsExactly(fullwidthTilde, emoji);
    assertThat(
            ShardedCollection.merge("q", lists, ShardedCollection.order(Family.FAMILY_SPARSE), 2)
                .getDocumentsList())
        .extracting(ScoredDocument::getDocId)
        .containsExactly(emoji, fullwidthTilde);
  }

  /**
   * An index service holding two shards of "docs": shard I answers every search with the documents
   * it was given, term statistics of I + 1 documents, and stored documents titled with the shard's
   * name.
   */
  private static final class TwoShards extends IndexServiceGrpc.IndexServiceImplBase {
    final List<SearchRequest> searches = Collections.synchronizedList(new ArrayList<>());
    final Map<String, List<ScoredDocument>> ranked;

    TwoShards(Map<String, List<ScoredDocument>> ranked) {
      this.ranked = ranked;
    }

    @Override
    public void getTermStatistics(
        GetTermStatisticsRequest request, StreamObserver<GetTermStatisticsResponse> responses) {
      int shard = ShardedCollection.Shard.of(request.getCollection()).orElseThrow().shard();
      responses.onNext(
          GetTermStatisticsResponse.newBuilder()
              .setStatistics(
                  Bm25Statistics.newBuilder()
                      .setMaxDocuments(shard + 1)
                      .setDocumentCount(shard + 1)
                      .setTotalTermCount(10L * (shard + 1))
                      .addTerms(
                          TermStatistics.newBuilder()
                              .setTerm("apple")
                              .setDocumentFrequency(shard + 1)
                              .setTotalTermFrequency(2L * (shard + 1))))
              .build());
      responses.onCompleted();
    }

    @Override
    public void search(SearchRequest request, StreamObserver<SearchResponse> responses) {
      searches.add(request);
      SearchResponse.Builder response =
          SearchResponse.newBuilder()
              .setStats(SearchStats.newBuilder().setSearchNanos(100).setApproximateRecall(1));
      for (Query query : request.getQueriesList()) {
        response.addRankings(
            Ranking.newBuilder()
                .setQueryId(query.getId())
                .addAllDocuments(ranked.get(request.getCollection())));
      }
      responses.onNext(response.build());
      responses.onCompleted();
    }

    @Override
    public void getDocuments(
        GetDocumentsRequest request, StreamObserver<GetDocumentsResponse> responses) {
      GetDocumentsResponse.Builder response = GetDocumentsResponse.newBuilder();
      for (String id : request.getIdsList()) {
        response.addDocuments(
            StoredDocument.newBuilder().setId(id).setTitle(request.getCollection()));
      }
      responses.onNext(response.build());
      responses.onCompleted();
    }
  }

  @Test
  void aBm25SearchSendsTheSummedStatisticsToEveryShardAndMergesTheirLists() throws Exception {
    TwoShards index =
        new TwoShards(
            Map.of(
                "docs.shard-0-of-2", List.of(doc("b", 2), doc("a", 1)),
                "docs.shard-1-of-2", List.of(doc("c", 2), doc("d", 0.5f))));
    try (var server = TestServers.inProcess(index)) {
      ShardedCollection docs =
          new ShardedCollection(
              new IndexClient(server.channel(), new CallPolicy(Duration.ofSeconds(10), 1)),
              "docs",
              2);
      SearchResponse merged =
          docs.search(
              SearchRequest.newBuilder()
                  .setCollection("docs")
                  .setFamily(Family.FAMILY_BM25)
                  .setTopK(3)
                  .addQueries(Query.newBuilder().setId("q1").setText("apple"))
                  .build());
      assertThat(merged.getRankingsCount()).isEqualTo(1);
      assertThat(merged.getRankings(0).getQueryId()).isEqualTo("q1");
      assertThat(merged.getRankings(0).getDocumentsList())
          .extracting(ScoredDocument::getDocId)
          .containsExactly("b", "c", "a");
      assertThat(merged.getStats().getSearchNanos()).as("shards' times added").isEqualTo(200);
      assertThat(index.searches)
          .extracting(SearchRequest::getCollection)
          .containsExactlyInAnyOrder("docs.shard-0-of-2", "docs.shard-1-of-2");
      for (SearchRequest shardSearch : index.searches) {
        Bm25Statistics sent = shardSearch.getBm25().getStatistics();
        assertThat(sent.getDocumentCount()).isEqualTo(3);
        assertThat(sent.getTotalTermCount()).isEqualTo(30);
        assertThat(sent.getTermsList())
            .containsExactly(
                TermStatistics.newBuilder()
                    .setTerm("apple")
                    .setDocumentFrequency(3)
                    .setTotalTermFrequency(6)
                    .build());
      }
    }
  }

  @Test
  void storedDocumentsAreFetchedFromTheirShardsAndReturnedInRequestOrder() throws Exception {
    TwoShards index = new TwoShards(Map.of());
    try (var server = TestServers.inProcess(index)) {
      ShardedCollection docs =
          new ShardedCollection(
              new IndexClient(server.channel(), new CallPolicy(Duration.ofSeconds(10), 1)),
              "docs",
              2);
      List<String> ids = List.of("doc-1", "a", "foobar", "é", "doc-1");
      GetDocumentsResponse response =
          docs.getDocuments(
              GetDocumentsRequest.newBuilder().setCollection("docs").addAllIds(ids).build());
      assertThat(response.getDocumentsList()).extracting(StoredDocument::getId).isEqualTo(ids);
      for (StoredDocument document : response.getDocumentsList()) {
        assertThat(document.getTitle())
            .as(document.getId() + " read from its shard")
            .isEqualTo(
                ShardedCollection.shardName(
                    "docs", ShardedCollection.shardOf(document.getId(), 2), 2));
      }
    }
  }

  @Test
  void aRepairIsRefusedWhileAWriteIsUnderWayAndAWriteStartedDuringARepairWaitsForIt()
      throws Exception {
    ShardedCollection collection = new ShardedCollection(null, "docs", 2, 2);
    try (ShardedCollection.Hold writing = collection.writing()) {
      assertThatThrownBy(collection::repairing)
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("cannot repair the replicas of docs while it is being written")
          .hasMessageContaining("repair once the ingest has committed");
      // Refused before any call: the client is never reached.
      assertThatThrownBy(() -> new ReplicaRepair(null).repairLostReplicas(collection))
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("while it is being written");
    }
    ShardedCollection.Hold repairing = collection.repairing();
    CompletableFuture<Void> write = CompletableFuture.runAsync(() -> collection.writing().close());
    Thread.sleep(300);
    assertThat(write).as("the write waits for the repair").isNotDone();
    repairing.close();
    write.get(10, TimeUnit.SECONDS);
    // Every write committed: a repair is taken again.
    collection.repairing().close();
  }
}
