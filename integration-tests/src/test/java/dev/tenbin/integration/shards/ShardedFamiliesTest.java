package dev.tenbin.integration.shards;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenbin.client.index.IndexClient;
import dev.tenbin.eval.retrieval.IndexSession;
import dev.tenbin.index.server.IndexServer;
import dev.tenbin.proto.common.v1.MultiVector;
import dev.tenbin.proto.common.v1.Ranking;
import dev.tenbin.proto.common.v1.SparseVector;
import dev.tenbin.proto.index.v1.CandidateList;
import dev.tenbin.proto.index.v1.Document;
import dev.tenbin.proto.index.v1.Family;
import dev.tenbin.proto.index.v1.GetDocumentsRequest;
import dev.tenbin.proto.index.v1.GetDocumentsResponse;
import dev.tenbin.proto.index.v1.Query;
import dev.tenbin.proto.index.v1.RescoreRequest;
import dev.tenbin.proto.index.v1.SparseOptions;
import dev.tenbin.scoring.metrics.ScoredDoc;
import io.grpc.ManagedChannel;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeSet;
import java.util.UUID;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Learned sparse and late interaction over a collection of K shards of R replicas rank as one
 * collection: for K=1,R=1, K=3,R=1 and K=2,R=2 the same documents, the same scores bit for bit and
 * the same ties, for top-k searches (every pruning setting), for rescored candidate lists and for
 * stored documents fetched by id.
 */
class ShardedFamiliesTest {
  @TempDir Path tmp;

  /** The layouts compared: (shards, replicas). */
  private static final int[][] LAYOUTS = {{3, 1}, {2, 2}};

  private static final int VOCABULARY = 24;
  private static final int DIMENSION = 4;

  private final List<AutoCloseable> open = new ArrayList<>();
  private IndexClient index;

  @BeforeEach
  void startIndex() {
    String name = "families-" + UUID.randomUUID();
    open.add(IndexServer.startInProcess(name, tmp.resolve(name), new SimpleMeterRegistry()));
    ManagedChannel channel = InProcessChannelBuilder.forName(name).build();
    open.add(channel::shutdownNow);
    index = IndexClient.of(channel);
  }

  @AfterEach
  void close() throws Exception {
    for (AutoCloseable resource : open.reversed()) {
      resource.close();
    }
  }

  /**
   * Document ids, some outside the Basic Multilingual Plane and some above its surrogates, where
   * Java's string order (the vector searchers' tie order) and UTF-8 byte order differ.
   */
  private static String id(int d) {
    return switch (d % 3) {
      case 0 -> "doc-" + d;
      case 1 -> "doc-\uFF21" + d;
      default -> "doc-\uD83D\uDE00" + d;
    };
  }

  /** A sparse vector of a few dims with coarse weights: many documents tie exactly. */
  private static SparseVector sparse(SplittableRandom random, int dims) {
    TreeSet<Integer> ids = new TreeSet<>();
    while (ids.size() < dims) {
      ids.add(random.nextInt(VOCABULARY));
    }
    SparseVector.Builder vector = SparseVector.newBuilder();
    for (int term : ids) {
      vector.addIndices(term).addValues(0.5f * random.nextInt(1, 5));
    }
    return vector.build();
  }

  /** Token vectors of coarse values: many documents tie exactly. */
  private static MultiVector multiVector(SplittableRandom random, int tokens) {
    MultiVector.Builder vector =
        MultiVector.newBuilder().setTokenCount(tokens).setDimension(DIMENSION);
    for (int i = 0; i < tokens * DIMENSION; i++) {
      vector.addValues((float) random.nextInt(-2, 3));
    }
    return vector.build();
  }

  private static List<Document> sparseDocuments() {
    SplittableRandom random = new SplittableRandom(3);
    List<Document> documents = new ArrayList<>();
    for (int d = 0; d < 300; d++) {
      documents.add(
          Document.newBuilder()
              .setId(id(d))
              .setTitle("title " + d)
              .setText("text " + d)
              .setSparse(sparse(random, random.nextInt(1, 6)))
              .build());
    }
    return documents;
  }

  private static List<Query> sparseQueries() {
    SplittableRandom random = new SplittableRandom(4);
    List<Query> queries = new ArrayList<>();
    for (int q = 0; q < 20; q++) {
      queries.add(Query.newBuilder().setId("q" + q).setSparse(sparse(random, 4)).build());
    }
    return queries;
  }

  private static List<Document> multiVectorDocuments() {
    SplittableRandom random = new SplittableRandom(5);
    List<Document> documents = new ArrayList<>();
    for (int d = 0; d < 300; d++) {
      documents.add(
          Document.newBuilder()
              .setId(id(d))
              .setTitle("title " + d)
              .setText("text " + d)
              .setMultiVector(multiVector(random, random.nextInt(1, 4)))
              .build());
    }
    return documents;
  }

  private static List<Query> multiVectorQueries() {
    SplittableRandom random = new SplittableRandom(6);
    List<Query> queries = new ArrayList<>();
    for (int q = 0; q < 20; q++) {
      queries.add(Query.newBuilder().setId("q" + q).setMultiVector(multiVector(random, 2)).build());
    }
    return queries;
  }

  /** What one layout answers: per query its ranking, the rescored lists and fetched documents. */
  private record Answers(
      List<Map<String, List<ScoredDoc>>> searches,
      List<Ranking> rescored,
      GetDocumentsResponse documents) {}

  private Answers answers(
      int shards,
      int replicas,
      int sparseVocabulary,
      int multiVectorDimension,
      List<Document> documents,
      Function<IndexSession, List<Map<String, List<ScoredDoc>>>> searches,
      RescoreRequest rescore) {
    try (IndexSession session =
        new IndexSession(
            index,
            new IndexSession.Shape(
                "en", 0, sparseVocabulary, multiVectorDimension, null, shards, replicas))) {
      assertThat(session.ingest(documents)).isEqualTo(documents.size());
      GetDocumentsRequest.Builder fetch = GetDocumentsRequest.newBuilder().setCollection("ignored");
      for (int d = documents.size() - 1; d >= 0; d -= 7) {
        fetch.addIds(documents.get(d).getId());
      }
      return new Answers(
          searches.apply(session),
          session
              .collection()
              .rescore(rescore.toBuilder().setCollection(session.name()).build())
              .getRankingsList(),
          session.collection().getDocuments(fetch.setCollection(session.name()).build()));
    }
  }

  /** Candidate lists of every third document, in id order reversed, for each query. */
  private static RescoreRequest rescoreRequest(
      Family family, List<Document> documents, List<Query> queries) {
    RescoreRequest.Builder request = RescoreRequest.newBuilder().setFamily(family);
    for (Query query : queries) {
      CandidateList.Builder list = CandidateList.newBuilder().setQuery(query);
      for (int d = documents.size() - 1; d >= 0; d -= 3) {
        list.addDocIds(documents.get(d).getId());
      }
      request.addCandidates(list);
    }
    return request.build();
  }

  /** Whether some ranking holds two neighbours of equal score: the tie order is exercised. */
  private static boolean hasTies(Map<String, List<ScoredDoc>> rankings) {
    for (List<ScoredDoc> ranking : rankings.values()) {
      for (int i = 1; i < ranking.size(); i++) {
        if (ranking.get(i).score() == ranking.get(i - 1).score()) {
          return true;
        }
      }
    }
    return false;
  }

  private void assertEveryLayoutAnswersAsOne(
      int sparseVocabulary,
      int multiVectorDimension,
      List<Document> documents,
      Function<IndexSession, List<Map<String, List<ScoredDoc>>>> searches,
      RescoreRequest rescore) {
    Answers one =
        answers(1, 1, sparseVocabulary, multiVectorDimension, documents, searches, rescore);
    assertThat(one.searches()).allSatisfy(rankings -> assertThat(hasTies(rankings)).isTrue());
    assertThat(one.searches().getFirst().values()).allSatisfy(list -> assertThat(list).hasSize(40));
    assertThat(one.rescored()).hasSize(rescore.getCandidatesCount());
    assertThat(one.rescored().getFirst().getDocumentsCount())
        .isEqualTo(rescore.getCandidates(0).getDocIdsCount());
    for (int[] layout : LAYOUTS) {
      Answers sharded =
          answers(
              layout[0],
              layout[1],
              sparseVocabulary,
              multiVectorDimension,
              documents,
              searches,
              rescore);
      String as = layout[0] + " shards of " + layout[1] + " replicas";
      assertThat(sharded.searches()).as(as).isEqualTo(one.searches());
      assertThat(sharded.rescored()).as(as + ", rescored").isEqualTo(one.rescored());
      assertThat(sharded.documents()).as(as + ", documents").isEqualTo(one.documents());
    }
  }

  @Test
  void learnedSparseOverShardsAndReplicasRanksAsOneCollectionForEveryPruning() {
    List<Document> documents = sparseDocuments();
    List<Query> queries = sparseQueries();
    List<SparseOptions> prunings =
        List.of(
            SparseOptions.getDefaultInstance(),
            SparseOptions.newBuilder().setMaxQueryDims(2).build(),
            SparseOptions.newBuilder().setMaxQueryDims(2).setMaxDocumentDims(2).build());
    assertEveryLayoutAnswersAsOne(
        VOCABULARY,
        0,
        documents,
        session ->
            prunings.stream().map(pruning -> session.searchSparse(queries, pruning, 40)).toList(),
        rescoreRequest(Family.FAMILY_SPARSE, documents, queries).toBuilder()
            .setSparse(SparseOptions.newBuilder().setMaxDocumentDims(3))
            .build());
  }

  @Test
  void lateInteractionOverShardsAndReplicasRanksAsOneCollection() {
    List<Document> documents = multiVectorDocuments();
    List<Query> queries = multiVectorQueries();
    assertEveryLayoutAnswersAsOne(
        0,
        DIMENSION,
        documents,
        session -> List.of(session.search(Family.FAMILY_MULTIVECTOR, queries, null, 40)),
        rescoreRequest(Family.FAMILY_MULTIVECTOR, documents, queries));
  }
}
