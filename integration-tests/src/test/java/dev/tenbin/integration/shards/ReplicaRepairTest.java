package dev.tenbin.integration.shards;

import static dev.tenbin.integration.shards.ReplicaCorpus.COSINE;
import static dev.tenbin.integration.shards.ReplicaCorpus.denseQueries;
import static dev.tenbin.integration.shards.ReplicaCorpus.documents;
import static dev.tenbin.integration.shards.ReplicaCorpus.runningAt;
import static dev.tenbin.integration.shards.ReplicaCorpus.textQueries;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tenbin.client.index.IndexClient;
import dev.tenbin.client.index.ReplicaRepair;
import dev.tenbin.client.index.ShardedCollection;
import dev.tenbin.eval.retrieval.Bm25Retrieval;
import dev.tenbin.eval.retrieval.IndexSession;
import dev.tenbin.eval.services.IndexPlacement;
import dev.tenbin.proto.index.v1.Document;
import dev.tenbin.proto.index.v1.Family;
import dev.tenbin.proto.index.v1.GetCollectionDigestResponse;
import dev.tenbin.proto.index.v1.IngestRequest;
import dev.tenbin.proto.index.v1.Query;
import dev.tenbin.scoring.beir.BeirDataset;
import dev.tenbin.scoring.beir.BeirDatasetReader;
import dev.tenbin.scoring.metrics.ScoredDoc;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.ClientInterceptor;
import io.grpc.ClientInterceptors;
import io.grpc.ForwardingClientCall;
import io.grpc.ForwardingServerCall;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.Status;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;
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
 * its way is refused and stays out. A copy is bounded by its idle timeout, not its length: one
 * slower in all than the timeout is readmitted, one whose peer stops answering mid-export fails in
 * about the timeout. A repair never runs while the collection is being ingested, and a BM25 work
 * item rebuilds a replica lost in its ingest before its first search.
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
    return new IndexSession(index, IndexSession.Shape.dense(16).withLayout(shards, replicas));
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
    // Over four batches per shard's stream: when the one before the last batch is handed out,
    // each shard's first batch is on its way (as in ReplicatedCollectionTest); killed once it
    // arrived, so the pod comes back with part of its copies.
    int batch = IndexSession.INGEST_BATCH;
    List<Document> documents = documents(8 * batch);
    try (IndexSession replicated = session(2, 2)) {
      int victim = podAtRank(replicated, 1);
      String copyOnVictim = replicated.collection().replicaName(0, 1);
      Iterator<Document> killing =
          runningAt(documents, 7 * batch, () -> pods.pod(victim).killOnceIngesting(copyOnVictim));
      assertThat(replicated.ingest(killing)).isEqualTo(documents.size());
      assertThat(pods.pod(victim).served("Ingest", copyOnVictim))
          .as("Ingest calls the victim served before it was killed")
          .isPositive();
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

  /** Kills the pod of rank 1 of a one-shard session and searches until its replica is left out. */
  private void loseReplicaOne(IndexSession session) {
    Map<String, List<ScoredDoc>> before = bm25(session);
    pods.pod(podAtRank(session, 1)).kill();
    // Two searches: the replicas are taken in turn, so one of them meets the killed pod.
    assertThat(bm25(session)).isEqualTo(before);
    assertThat(bm25(session)).isEqualTo(before);
    assertThat(session.collection().liveReplicas(0)).containsExactly(0);
  }

  /** Sleeps, for a request operator that slows what a pod receives. */
  private static void pause(Duration duration) {
    try {
      Thread.sleep(duration);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  @Test
  void aCopySlowerInAllThanTheIdleTimeoutIsReadmittedAndAnIngestStartedMeanwhileWaitsForIt()
      throws Exception {
    // Six pages of 500, each acknowledged a second late: about 6 s in all, against 3 s idle.
    List<Document> documents = documents(3_600);
    Duration idle = Duration.ofSeconds(3);
    try (IndexSession replicated = session(1, 2)) {
      replicated.ingest(documents.subList(0, 3_000));
      ShardedCollection collection = replicated.collection();
      loseReplicaOne(replicated);
      int victim = podAtRank(replicated, 1);
      String target = collection.replicaName(0, 1);
      String peer = collection.replicaName(0, 0);
      IndexPod slow =
          pods.restart(
              victim,
              tmp.resolve("replacement"),
              message -> {
                if (message instanceof IngestRequest) {
                  pause(Duration.ofSeconds(1));
                }
                return message;
              });

      long start = System.nanoTime();
      CompletableFuture<List<ReplicaRepair.Outcome>> repair =
          CompletableFuture.supplyAsync(
              () -> new ReplicaRepair(index, idle).repairLostReplicas(collection));
      long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while (slow.served("Ingest", target) == 0 && System.nanoTime() < until) {
        LockSupport.parkNanos(10_000_000);
      }
      assertThat(slow.served("Ingest", target)).as("the copy began").isPositive();
      IndexPod peerPod = pods.pod(podAtRank(replicated, 0));
      long peerIngests = peerPod.served("Ingest", peer);
      // An ingest started while the copy runs waits for it, then writes to both replicas.
      CompletableFuture<Long> ingest =
          CompletableFuture.supplyAsync(
              () -> replicated.ingest(documents.subList(3_000, documents.size())));
      Thread.sleep(1_500);
      assertThat(repair).as("the copy still runs").isNotDone();
      assertThat(ingest).as("the ingest waits for the copy").isNotDone();
      assertThat(peerPod.served("Ingest", peer)).isEqualTo(peerIngests);

      List<ReplicaRepair.Outcome> outcomes = repair.get(60, TimeUnit.SECONDS);
      Duration took = Duration.ofNanos(System.nanoTime() - start);
      assertThat(outcomes)
          .extracting(ReplicaRepair.Outcome::result)
          .containsExactly(ReplicaRepair.Result.READMITTED);
      assertThat(outcomes.getFirst().documents()).isEqualTo(3_000);
      assertThat(took).as("the copy took longer than the idle timeout").isGreaterThan(idle);

      assertThat(ingest.get(60, TimeUnit.SECONDS)).isEqualTo(documents.size());
      assertEveryReplicaLive(collection);
      assertSameDigestAsItsPeers(collection, 0, 1);
      assertThat(index.collectionDigest(target).getDocumentCount()).isEqualTo(documents.size());
    }
  }

  @Test
  void aPeerThatStopsAnsweringInTheMiddleOfItsExportFailsTheCopyWithinTheIdleTimeout()
      throws Exception {
    // Three pages of 500: the peer sends the first and then nothing, its call left open.
    List<Document> documents = documents(1_500);
    Duration idle = Duration.ofSeconds(2);
    try (IndexSession replicated = session(1, 2)) {
      replicated.ingest(documents);
      ShardedCollection collection = replicated.collection();
      Map<String, List<ScoredDoc>> bm25 = bm25(replicated);
      loseReplicaOne(replicated);
      int victim = podAtRank(replicated, 1);
      int peerAt = podAtRank(replicated, 0);
      String target = collection.replicaName(0, 1);
      String peer = collection.replicaName(0, 0);
      IndexPod replacement =
          pods.restart(victim, tmp.resolve("replacement"), UnaryOperator.identity());
      ServerInterceptor stopsAfterTheFirstPage =
          new ServerInterceptor() {
            @Override
            public <Q, A> ServerCall.Listener<Q> interceptCall(
                ServerCall<Q, A> call, Metadata headers, ServerCallHandler<Q, A> next) {
              if (!call.getMethodDescriptor().getBareMethodName().equals("ExportDocuments")) {
                return next.startCall(call, headers);
              }
              return next.startCall(
                  new ForwardingServerCall.SimpleForwardingServerCall<>(call) {
                    private int pages;

                    @Override
                    public void sendMessage(A page) {
                      if (pages++ == 0) {
                        super.sendMessage(page);
                      }
                    }

                    @Override
                    public void close(Status status, Metadata trailers) {
                      // Never ends the call: the client waits for a page that does not come.
                    }
                  },
                  headers);
            }
          };
      pods.restart(
          peerAt, tmp.resolve("pod-" + peerAt), UnaryOperator.identity(), stopsAfterTheFirstPage);

      long start = System.nanoTime();
      List<ReplicaRepair.Outcome> outcomes =
          new ReplicaRepair(index, idle).repairLostReplicas(collection);
      Duration took = Duration.ofNanos(System.nanoTime() - start);

      assertThat(outcomes)
          .extracting(ReplicaRepair.Outcome::result)
          .containsExactly(ReplicaRepair.Result.UNREACHABLE);
      assertThat(outcomes.getFirst().reason())
          .contains("DEADLINE_EXCEEDED")
          .contains("made no progress for 2 s")
          .contains("page 2 of the export of " + peer)
          .contains("having copied 500 documents");
      assertThat(took).isGreaterThanOrEqualTo(idle).isLessThan(idle.plusSeconds(15));
      assertThat(replacement.served("Ingest", target)).as("the first page arrived").isOne();
      // The replica stays out: searches answer from the peer alone, with the same rankings.
      assertThat(collection.liveReplicas(0)).containsExactly(0);
      assertThat(bm25(replicated)).isEqualTo(bm25);
      assertThat(bm25(replicated)).isEqualTo(bm25);
      assertThat(replacement.served("Search", target)).isZero();
    }
  }

  @Test
  void aRepairIsRefusedWhileTheCollectionIsStillBeingIngested() {
    List<Document> documents = documents(3_000);
    try (IndexSession replicated = session(2, 2)) {
      ShardedCollection collection = replicated.collection();
      List<RuntimeException> refusals = new ArrayList<>();
      Iterator<Document> repairingMidway =
          runningAt(
              documents,
              1_500,
              () -> {
                for (Runnable repair :
                    List.<Runnable>of(
                        replicated::repairLostReplicas,
                        () -> new ReplicaRepair(index).repairLostReplicas(collection))) {
                  try {
                    repair.run();
                  } catch (RuntimeException refused) {
                    refusals.add(refused);
                  }
                }
              });

      assertThat(replicated.ingest(repairingMidway)).isEqualTo(documents.size());

      assertThat(refusals).hasSize(2);
      assertThat(refusals)
          .allSatisfy(
              refused ->
                  assertThat(refused)
                      .isInstanceOf(IllegalStateException.class)
                      .hasMessageContaining("cannot repair the replicas of " + replicated.name())
                      .hasMessageContaining("while it is being written")
                      .hasMessageContaining("repair once the ingest has committed"));
      // Committed: a repair runs (nothing is lost, so nothing to do).
      assertThat(replicated.repairLostReplicas()).isEmpty();
      assertEveryReplicaLive(collection);
    }
  }

  /** A BEIR dataset of the replica corpus's documents and text queries, one judgment a query. */
  private BeirDataset dataset(List<Document> documents) throws IOException {
    Path dir = Files.createDirectories(tmp.resolve("beir").resolve("qrels"));
    StringBuilder corpus = new StringBuilder();
    for (Document document : documents) {
      corpus.append(
          "{\"_id\":\"%s\",\"title\":\"%s\",\"text\":\"%s\"}\n"
              .formatted(document.getId(), document.getTitle(), document.getText()));
    }
    Files.writeString(dir.getParent().resolve("corpus.jsonl"), corpus);
    StringBuilder queries = new StringBuilder();
    StringBuilder qrels = new StringBuilder("query-id\tcorpus-id\tscore\n");
    List<Query> texts = textQueries();
    for (int q = 0; q < texts.size(); q++) {
      queries.append(
          "{\"_id\":\"%s\",\"text\":\"%s\"}\n"
              .formatted(texts.get(q).getId(), texts.get(q).getText()));
      qrels.append("%s\tdoc-%d\t1\n".formatted(texts.get(q).getId(), q * 11));
    }
    Files.writeString(dir.getParent().resolve("queries.jsonl"), queries);
    Files.writeString(dir.resolve("test.tsv"), qrels);
    return BeirDatasetReader.read(dir.getParent());
  }

  @Test
  void aReplicaLostDuringABm25WorkItemsIngestIsRebuiltBeforeItsFirstSearch() throws Exception {
    BeirDataset data = dataset(documents(1_200));
    Map<String, List<ScoredDoc>> one =
        new Bm25Retrieval(index).withLatencyConcurrency(1).run(data, "en", 50).rankings();
    assertThat(one).hasSize(textQueries().size());

    // Pod 0 cuts the first ingest stream it is sent (CANCELLED, as a pod stopped at once cuts its
    // streams) and then serves as before: the replica it holds is left out in the ingest.
    AtomicBoolean cutting = new AtomicBoolean(true);
    ServerInterceptor cutsTheFirstIngest =
        new ServerInterceptor() {
          @Override
          public <Q, A> ServerCall.Listener<Q> interceptCall(
              ServerCall<Q, A> call, Metadata headers, ServerCallHandler<Q, A> next) {
            if (call.getMethodDescriptor().getBareMethodName().equals("Ingest")
                && cutting.compareAndSet(true, false)) {
              call.close(Status.CANCELLED.withDescription("stream cut"), new Metadata());
              return new ServerCall.Listener<>() {};
            }
            return next.startCall(call, headers);
          }
        };
    pods.restart(0, tmp.resolve("pod-0"), UnaryOperator.identity(), cutsTheFirstIngest);
    // Every call of the work item, in the order the client starts them, with its collection.
    List<String> calls = new CopyOnWriteArrayList<>();
    ClientInterceptor recorder =
        new ClientInterceptor() {
          @Override
          public <Q, A> ClientCall<Q, A> interceptCall(
              MethodDescriptor<Q, A> method, CallOptions options, Channel next) {
            return new ForwardingClientCall.SimpleForwardingClientCall<>(
                next.newCall(method, options)) {
              private boolean first = true;

              @Override
              public void sendMessage(Q message) {
                if (first) {
                  calls.add(
                      method.getBareMethodName() + " " + IndexPlacement.collectionOf(message));
                  first = false;
                }
                super.sendMessage(message);
              }
            };
          }
        };
    IndexClient recorded = IndexClient.of(ClientInterceptors.intercept(pods.channel(), recorder));

    Map<String, List<ScoredDoc>> replicated =
        new Bm25Retrieval(recorded)
            .withLatencyConcurrency(1)
            .withShards(2)
            .withReplicas(2)
            .run(data, "en", 50)
            .rankings();

    assertThat(cutting).as("pod 0 cut an ingest stream").isFalse();
    assertThat(replicated).isEqualTo(one);
    List<String> exports =
        calls.stream().filter(call -> call.startsWith("ExportDocuments ")).toList();
    assertThat(exports).as("one replica rebuilt from its peer").hasSize(1);
    ShardedCollection.Copy peer = ShardedCollection.Copy.of(exports.getFirst().split(" ")[1]);
    String rebuilt =
        ShardedCollection.replicaName(
            peer.collection(), peer.shard(), peer.shards(), 1 - peer.replica(), peer.replicas());
    assertThat(pods.holding(rebuilt)).isSameAs(pods.pod(0));
    int lastDigest = -1;
    int firstRead = -1;
    for (int i = 0; i < calls.size(); i++) {
      String method = calls.get(i).split(" ")[0];
      if (method.equals("GetCollectionDigest")) {
        lastDigest = i;
      }
      if (firstRead < 0 && (method.equals("Search") || method.equals("GetTermStatistics"))) {
        firstRead = i;
      }
    }
    assertThat(calls).contains("Ingest " + rebuilt, "GetCollectionDigest " + rebuilt);
    assertThat(lastDigest)
        .as("the repair's digests come before the first search")
        .isLessThan(firstRead);
    // Readmitted: the rebuilt replica answers reads of the work item's searches (a BM25 search
    // reads each shard twice, its statistics then the search, the replicas taken in turn).
    assertThat(calls.subList(firstRead, calls.size()))
        .containsAnyOf("Search " + rebuilt, "GetTermStatistics " + rebuilt);
  }
}
