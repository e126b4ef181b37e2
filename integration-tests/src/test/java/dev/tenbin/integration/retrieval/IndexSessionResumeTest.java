package dev.tenbin.integration.retrieval;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenbin.client.index.IndexClient;
import dev.tenbin.client.index.ShardedCollection;
import dev.tenbin.eval.retrieval.CollectionIngester;
import dev.tenbin.eval.retrieval.IndexSession;
import dev.tenbin.eval.retrieval.WorkCollections;
import dev.tenbin.proto.index.v1.CollectionSpec;
import dev.tenbin.proto.index.v1.CreateCollectionRequest;
import dev.tenbin.proto.index.v1.Document;
import dev.tenbin.proto.index.v1.Family;
import dev.tenbin.proto.index.v1.IngestRequest;
import dev.tenbin.proto.index.v1.Query;
import io.grpc.Context;
import io.grpc.ForwardingServerCallListener;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A work item's collection left by a run that was killed mid-ingest: the same work item run again
 * keeps it and ingests only the corpus slices it had not committed; a collection of that name with
 * another spec, or holding what is not a part of the corpus, is made again. A sharded one resumes
 * at the first slice some copy of some shard had not committed, and is made again when a copy is
 * missing.
 */
class IndexSessionResumeTest {
  /** Documents in a corpus slice (the product's {@code CorpusDocuments.SLICE}). */
  private static final int SLICE = 4_096;

  @TempDir Path dataDir;
  private InProcessIndex service;
  private IndexClient index;

  /** Documents the service received in Ingest messages. */
  private final AtomicLong received = new AtomicLong();

  /** The notes of the work item the sessions run in. */
  private final List<String> notes = new CopyOnWriteArrayList<>();

  private final WorkCollections work = new WorkCollections("job\nwork item", notes::add);

  @BeforeEach
  void start() throws Exception {
    ServerInterceptor counting =
        new ServerInterceptor() {
          @Override
          public <Q, R> ServerCall.Listener<Q> interceptCall(
              ServerCall<Q, R> call, Metadata headers, ServerCallHandler<Q, R> next) {
            return new ForwardingServerCallListener.SimpleForwardingServerCallListener<>(
                next.startCall(call, headers)) {
              @Override
              public void onMessage(Q message) {
                if (message instanceof IngestRequest batch) {
                  received.addAndGet(batch.getDocumentsCount());
                }
                super.onMessage(message);
              }
            };
          }
        };
    service = new InProcessIndex(dataDir, counting);
    index = service.client();
  }

  @AfterEach
  void stop() {
    service.close();
  }

  private <T> T inWork(Callable<T> body) throws Exception {
    return Context.current().withValue(WorkCollections.CURRENT, work).call(body);
  }

  private static List<Document> corpus(String prefix, int count) {
    List<Document> documents = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      documents.add(
          Document.newBuilder()
              .setId(String.format("%s%05d", prefix, i))
              .setText("apple number " + i)
              .build());
    }
    return documents;
  }

  /** A BM25 session of the work item over a corpus of {@code documents}. */
  private IndexSession session(int documents, int shards) {
    return session(documents, shards, 1);
  }

  @Test
  void aCollectionLeftMidIngestIsKeptAndOnlyTheSlicesItHadNotCommittedAreIngested()
      throws Exception {
    List<Document> corpus = corpus("d", 2 * SLICE + 1_808);
    // The killed run: two slices and 100 documents of the third committed, never closed.
    String name =
        inWork(
            () -> {
              IndexSession killed = session(corpus.size(), 1);
              killed.ingest(corpus.subList(0, 2 * SLICE + 100));
              return killed.name();
            });
    received.set(0);

    try (IndexSession again = inWork(() -> session(corpus.size(), 1))) {
      assertThat(again.name()).isEqualTo(name);
      assertThat(again.ingest(corpus.iterator(), corpus.size())).isEqualTo(corpus.size());
      assertThat(notes)
          .containsExactly(
              "resuming the ingest at slice 3 of 3; 2 slices (8192 documents) were committed"
                  + " before");
      // Only the third slice was sent: its first 100 documents again, left as they were.
      assertThat(received).hasValue(1_808);
      assertThat(index.describeCollection(name).getDocumentCount()).isEqualTo(corpus.size());
    }
    // The work item succeeded: its collection is dropped as ever.
    assertThat(service.catalog.describeAll())
        .extracting(stats -> stats.name())
        .doesNotContain(name);
  }

  @Test
  void aCollectionLeftWholeIsSearchedWithoutAnIngest() throws Exception {
    List<Document> corpus = corpus("d", SLICE + 10);
    inWork(() -> session(corpus.size(), 1).ingest(corpus));
    received.set(0);

    try (IndexSession again = inWork(() -> session(corpus.size(), 1))) {
      assertThat(again.ingest(corpus.iterator(), corpus.size())).isEqualTo(corpus.size());
    }
    assertThat(notes)
        .containsExactly("the ingest was committed before: all 2 slices (4106 documents)");
    assertThat(received).hasValue(0);
  }

  @Test
  void aCollectionOfTheNameWithAnotherSpecIsMadeAgain() throws Exception {
    List<Document> corpus = corpus("d", 30);
    String name = inWork(() -> session(corpus.size(), 1).name());
    index.dropCollection(name);
    index.createCollection(
        CreateCollectionRequest.newBuilder()
            .setSpec(CollectionSpec.newBuilder().setName(name).setLanguage("de"))
            .build());
    new CollectionIngester(index, 10, 60).ingest(name, corpus("other", 5));

    try (IndexSession again = inWork(() -> session(corpus.size(), 1))) {
      assertThat(again.ingest(corpus.iterator(), corpus.size())).isEqualTo(30);
      assertThat(index.describeCollection(name).getSpec().getLanguage()).isEqualTo("en");
    }
    assertThat(notes).singleElement().asString().contains("has another spec");
  }

  @Test
  void aCollectionHoldingMoreThanTheCorpusIsMadeAgain() throws Exception {
    inWork(() -> session(20, 1).ingest(corpus("other", 50)));

    try (IndexSession again = inWork(() -> session(20, 1))) {
      assertThat(again.ingest(corpus("d", 20).iterator(), 20)).isEqualTo(20);
      assertThat(index.describeCollection(again.name()).getDocumentCount()).isEqualTo(20);
    }
    assertThat(notes)
        .singleElement()
        .asString()
        .contains("holds 50 documents, not a part of this corpus");
  }

  /**
   * A BM25 session of the work item over {@code documents}, in {@code shards} × {@code replicas}.
   */
  private IndexSession session(int documents, int shards, int replicas) {
    return new IndexSession(
        index,
        IndexSession.Shape.bm25("en", null).withLayout(shards, replicas),
        "bm25 " + documents);
  }

  @Test
  void aShardedCollectionLeftMidIngestResumesAtTheFirstSliceACopyHadNotCommitted()
      throws Exception {
    List<Document> corpus = corpus("d", 3 * SLICE + 500);
    // The killed run: every copy of both shards committed the corpus's first two slices and 1,000
    // documents; all but replica 1 of shard 0 got further, through their shard's documents of the
    // third slice and 200 of the fourth, before the kill. The copy furthest behind decides.
    String name =
        inWork(
            () -> {
              IndexSession killed = session(corpus.size(), 2, 2);
              killed.ingest(corpus.subList(0, 2 * SLICE + 1_000));
              return killed.name();
            });
    for (int[] copy : new int[][] {{0, 0}, {1, 0}, {1, 1}}) {
      new CollectionIngester(index, 100, 60)
          .ingest(
              ShardedCollection.replicaName(name, copy[0], 2, copy[1], 2),
              corpus.subList(2 * SLICE + 1_000, 3 * SLICE + 200).stream()
                  .filter(document -> ShardedCollection.shardOf(document.getId(), 2) == copy[0])
                  .toList());
    }
    received.set(0);

    try (IndexSession again = inWork(() -> session(corpus.size(), 2, 2));
        IndexSession fresh = session(corpus.size(), 2, 2)) {
      assertThat(again.name()).isEqualTo(name);
      assertThat(again.ingest(corpus.iterator(), corpus.size())).isEqualTo(corpus.size());
      assertThat(notes)
          .containsExactly(
              "resuming the ingest at slice 3 of 4; 2 slices (8192 documents) were committed"
                  + " before");
      // The last two slices went to both replicas of their shards; the copies ahead acknowledged
      // what they held and kept it once.
      assertThat(received).hasValue(2L * (corpus.size() - 2 * SLICE));
      for (int shard = 0; shard < 2; shard++) {
        int s = shard;
        long share =
            corpus.stream()
                .filter(document -> ShardedCollection.shardOf(document.getId(), 2) == s)
                .count();
        for (int replica = 0; replica < 2; replica++) {
          assertThat(
                  index
                      .describeCollection(ShardedCollection.replicaName(name, shard, 2, replica, 2))
                      .getDocumentCount())
              .isEqualTo(share);
        }
      }
      fresh.ingest(corpus.iterator(), corpus.size());
      List<Query> queries =
          List.of(
              Query.newBuilder().setId("q1").setText("apple number 9000").build(),
              Query.newBuilder().setId("q2").setText("number 12").build());
      assertThat(again.search(Family.FAMILY_BM25, queries, null, 20))
          .isEqualTo(fresh.search(Family.FAMILY_BM25, queries, null, 20));
    }
  }

  @Test
  void aShardedCollectionLeftWholeIsSearchedWithoutAnIngest() throws Exception {
    List<Document> corpus = corpus("d", SLICE + 10);
    inWork(() -> session(corpus.size(), 3, 1).ingest(corpus));
    received.set(0);

    try (IndexSession again = inWork(() -> session(corpus.size(), 3, 1))) {
      assertThat(again.ingest(corpus.iterator(), corpus.size())).isEqualTo(corpus.size());
    }
    assertThat(notes)
        .containsExactly("the ingest was committed before: all 2 slices (4106 documents)");
    assertThat(received).hasValue(0);
  }

  @Test
  void aShardedCollectionHoldingMoreThanTheCorpusIsMadeAgain() throws Exception {
    inWork(() -> session(20, 2, 1).ingest(corpus("other", 50)));
    received.set(0);

    try (IndexSession again = inWork(() -> session(20, 2, 1))) {
      assertThat(again.ingest(corpus("d", 20).iterator(), 20)).isEqualTo(20);
    }
    assertThat(received).hasValue(20);
    assertThat(notes)
        .singleElement()
        .asString()
        .contains("holds 50 documents, not a part of this corpus");
  }

  @Test
  void aShardedCollectionLackingACopyIsMadeAgain() throws Exception {
    List<Document> corpus = corpus("d", 300);
    String name = inWork(() -> session(corpus.size(), 2, 1).name());
    inWork(() -> session(corpus.size(), 2, 1).ingest(corpus.subList(0, 120)));
    index.dropCollection(ShardedCollection.replicaName(name, 1, 2, 0, 1));
    received.set(0);

    try (IndexSession again = inWork(() -> session(corpus.size(), 2, 1))) {
      assertThat(again.ingest(corpus.iterator(), corpus.size())).isEqualTo(300);
    }
    assertThat(received).hasValue(300);
    assertThat(notes).singleElement().asString().contains("lacks a copy; it is made again");
  }

  @Test
  void outsideAWorkItemEverySessionHasANameOfItsOwn() {
    try (IndexSession one = session(10, 1);
        IndexSession two = session(10, 1)) {
      assertThat(one.name()).isNotEqualTo(two.name());
    }
  }
}
