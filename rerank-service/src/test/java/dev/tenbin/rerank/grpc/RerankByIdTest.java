package dev.tenbin.rerank.grpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tenbin.client.index.ShardedCollection;
import dev.tenbin.model.ModelPolicy;
import dev.tenbin.model.hub.HubDownloader;
import dev.tenbin.model.onnx.OnnxModel;
import dev.tenbin.proto.common.v1.ScoredDocument;
import dev.tenbin.proto.index.v1.GetDocumentsRequest;
import dev.tenbin.proto.index.v1.GetDocumentsResponse;
import dev.tenbin.proto.index.v1.IndexServiceGrpc;
import dev.tenbin.proto.index.v1.StoredDocument;
import dev.tenbin.proto.rerank.v1.Candidate;
import dev.tenbin.proto.rerank.v1.IndexDocuments;
import dev.tenbin.proto.rerank.v1.RerankRequest;
import dev.tenbin.proto.rerank.v1.RerankResponse;
import dev.tenbin.proto.rerank.v1.RerankServiceGrpc;
import dev.tenbin.rerank.RerankCore;
import dev.tenbin.rerank.cross.RerankerRegistry;
import dev.tenbin.rpc.GrpcServerHost;
import dev.tenbin.rpc.StatusMapper;
import dev.tenbin.testing.models.TinyModels;
import dev.tenbin.testing.models.TinyOnnxModels;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.grpc.inprocess.InProcessServerBuilder;
import io.grpc.stub.StreamObserver;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Candidates given by id ({@code index_documents}): the rerank service fetches their title and text
 * from the index service (here an in-process stand-in that answers GetDocuments as the index
 * service's contract says; integration-tests' RerankByIdEndToEndTest runs the real one) and scores
 * them exactly as the same texts sent inline.
 */
class RerankByIdTest {
  /** Id, title, text: titled and untitled documents. */
  private static final String[][] CORPUS = {
    {"d0", "", "banana"},
    {"d1", "apple", "cherry"},
    {"d2", "fig", "grape apple"},
    {"d3", "", "date apple"},
  };

  @TempDir Path tmp;
  private Server index;
  private ManagedChannel indexChannel;
  private final FakeIndex fakeIndex = new FakeIndex();
  private final List<AutoCloseable> rerankServices = new ArrayList<>();

  /**
   * GetDocuments over collection "corpus" (CORPUS) and "old" (created before text was stored),
   * refusing calls of more than {@code maxIdsPerCall} ids as the real service refuses an oversized
   * response ({@code ids}); records each call's id count.
   */
  private static final class FakeIndex extends IndexServiceGrpc.IndexServiceImplBase {
    volatile int maxIdsPerCall = Integer.MAX_VALUE;
    final List<Integer> calls = new CopyOnWriteArrayList<>();
    final List<String> collections = new CopyOnWriteArrayList<>();
    final Map<String, String[]> documents = new java.util.concurrent.ConcurrentHashMap<>();

    FakeIndex() {
      for (String[] doc : CORPUS) {
        documents.put(doc[0], doc);
      }
    }

    @Override
    public void getDocuments(
        GetDocumentsRequest request, StreamObserver<GetDocumentsResponse> responses) {
      calls.add(request.getIdsCount());
      if (request.getCollection().equals("old")) {
        responses.onError(
            StatusMapper.withField(
                com.google.rpc.Code.FAILED_PRECONDITION,
                "collection old was created before the index service stored documents' text",
                "collection"));
        return;
      }
      // A copy of a shard of "corpus" holds the documents whose ids hash to that shard.
      ShardedCollection.Copy copy = ShardedCollection.Copy.of(request.getCollection());
      if (!copy.collection().equals("corpus")) {
        responses.onError(
            StatusMapper.withField(com.google.rpc.Code.NOT_FOUND, "no collection", "collection"));
        return;
      }
      collections.add(request.getCollection());
      if (request.getIdsCount() > maxIdsPerCall) {
        responses.onError(
            StatusMapper.withField(
                com.google.rpc.Code.INVALID_ARGUMENT, "response too large", "ids"));
        return;
      }
      GetDocumentsResponse.Builder response = GetDocumentsResponse.newBuilder();
      for (int i = 0; i < request.getIdsCount(); i++) {
        String[] doc = documents.get(request.getIds(i));
        if (doc == null
            || ShardedCollection.shardOf(request.getIds(i), copy.shards()) != copy.shard()) {
          responses.onError(
              StatusMapper.withField(
                  com.google.rpc.Code.NOT_FOUND, "no document", "ids[" + i + "]"));
          return;
        }
        response.addDocuments(
            StoredDocument.newBuilder().setId(doc[0]).setTitle(doc[1]).setText(doc[2]));
      }
      responses.onNext(response.build());
      responses.onCompleted();
    }
  }

  @BeforeEach
  void start() throws Exception {
    String indexName = "index-" + UUID.randomUUID();
    index =
        InProcessServerBuilder.forName(indexName)
            .directExecutor()
            .addService(fakeIndex)
            .build()
            .start();
    indexChannel = InProcessChannelBuilder.forName(indexName).directExecutor().build();
  }

  @AfterEach
  void stop() throws Exception {
    for (AutoCloseable service : rerankServices) {
      service.close();
    }
    indexChannel.shutdownNow();
    index.shutdownNow();
  }

  /** A rerank service with the tiny cross-encoder, documents fetched through {@code documents}. */
  private RerankServiceGrpc.RerankServiceBlockingStub rerankService(
      dev.tenbin.rerank.CandidateTexts documents) throws Exception {
    Path models = tmp.resolve("models-" + UUID.randomUUID());
    Path dir = Files.createDirectories(models.resolve("tiny-sigmoid"));
    Files.write(
        dir.resolve("model.onnx"),
        TinyOnnxModels.pairClassifier(
            TinyOnnxModels.table(TinyModels.VOCABULARY, TinyModels.HIDDEN, 1),
            TinyOnnxModels.table(TinyModels.HIDDEN, 2, 2),
            TinyModels.VOCABULARY,
            TinyModels.HIDDEN,
            2,
            false));
    Files.write(dir.resolve("tokenizer.json"), TinyOnnxModels.wordLevelTokenizer(TinyModels.WORDS));
    Files.writeString(
        dir.resolve("card.json"),
        "{\"id\":\"tiny-sigmoid\",\"head\":\"SIGMOID\",\"max_length\":64}");
    RerankCore core =
        new RerankCore(
            new RerankerRegistry(
                models,
                new HubDownloader("http://127.0.0.1:9", tmp.resolve("cache"), null),
                OnnxModel.RuntimeOptions.cpu(1),
                8192,
                ModelPolicy.allowAll()),
            () -> {
              throw new AssertionError("no bi-encoder in these tests");
            },
            1000,
            documents);
    String name = "rerank-" + UUID.randomUUID();
    GrpcServerHost host =
        GrpcServerHost.startInProcess(
            name, new SimpleMeterRegistry(), List.of(new RerankGrpcService(core)));
    ManagedChannel channel = InProcessChannelBuilder.forName(name).directExecutor().build();
    rerankServices.add(0, core);
    rerankServices.add(0, host::close);
    rerankServices.add(0, channel::shutdownNow);
    return RerankServiceGrpc.newBlockingStub(channel).withDeadlineAfter(60, TimeUnit.SECONDS);
  }

  private RerankServiceGrpc.RerankServiceBlockingStub withIndex() throws Exception {
    return rerankService(dev.tenbin.rerank.documents.IndexDocuments.through(() -> indexChannel));
  }

  private static RerankRequest byId(String collection, String... ids) {
    return RerankRequest.newBuilder()
        .setModelId("tiny-sigmoid")
        .setQuery("apple")
        .setIndexDocuments(
            IndexDocuments.newBuilder().setCollection(collection).addAllIds(List.of(ids)))
        .build();
  }

  private static void assertRefused(Runnable call, Status.Code code, String field) {
    assertThatThrownBy(call::run)
        .isInstanceOfSatisfying(
            StatusRuntimeException.class,
            e -> {
              assertThat(e.getStatus().getCode()).as(e.getMessage()).isEqualTo(code);
              assertThat(StatusMapper.violatedField(e)).isEqualTo(field);
            });
  }

  @Test
  void candidatesByIdScoreExactlyAsTheSameTextsInline() throws Exception {
    var rerank = withIndex();
    RerankRequest.Builder inline =
        RerankRequest.newBuilder().setModelId("tiny-sigmoid").setQuery("apple");
    for (String[] doc : CORPUS) {
      // The join the orchestrator sends inline (CorpusDocument.titleAndText).
      String text = doc[1].isEmpty() ? doc[2] : doc[1] + " " + doc[2];
      inline.addCandidates(Candidate.newBuilder().setDocId(doc[0]).setText(text));
    }

    RerankResponse byText = rerank.rerank(inline.build());
    RerankResponse byIds = rerank.rerank(byId("corpus", "d3", "d1", "d0", "d2"));

    assertThat(byIds.getDocumentsList()).isEqualTo(byText.getDocumentsList());
    assertThat(byIds.getDocumentsList())
        .extracting(ScoredDocument::getScore)
        .as("the texts differ, and so do their scores")
        .doesNotHaveDuplicates();
    assertThat(
            rerank
                .rerank(byId("corpus", "d3", "d1", "d0", "d2").toBuilder().setTopK(2).build())
                .getDocumentsList())
        .isEqualTo(byText.getDocumentsList().subList(0, 2));
  }

  /** {@code request} for the collection split into {@code shards} shards of {@code replicas}. */
  private static RerankRequest sharded(RerankRequest request, int shards, int replicas) {
    return request.toBuilder()
        .setIndexDocuments(
            request.getIndexDocuments().toBuilder().setShards(shards).setReplicas(replicas))
        .build();
  }

  @Test
  void candidatesByIdOfAShardedCollectionScoreAsThoseOfOneCollection() throws Exception {
    var rerank = withIndex();
    RerankRequest request = byId("corpus", "d3", "d1", "d0", "d2");
    RerankResponse one = rerank.rerank(request);
    assertThat(fakeIndex.collections).containsOnly("corpus");
    fakeIndex.collections.clear();

    RerankResponse threeShards = rerank.rerank(sharded(request, 3, 1));
    RerankResponse twoOfTwo = rerank.rerank(sharded(request, 2, 2));

    assertThat(threeShards.getDocumentsList()).isEqualTo(one.getDocumentsList());
    assertThat(twoOfTwo.getDocumentsList()).isEqualTo(one.getDocumentsList());
    // Each id was asked of its own shard (the fake refuses an id on another shard).
    assertThat(fakeIndex.collections)
        .allMatch(name -> name.startsWith("corpus.shard-"))
        .anyMatch(name -> name.endsWith("-of-3"))
        .anyMatch(name -> name.contains("-of-2.replica-"));
  }

  @Test
  void aShardedCollectionsRefusalsNameTheRequestsFields() throws Exception {
    var rerank = withIndex();

    // The unknown id is the fourth of the request, whichever shard refuses it.
    assertRefused(
        () -> rerank.rerank(sharded(byId("corpus", "d0", "d1", "d2", "missing"), 3, 2)),
        Status.Code.NOT_FOUND,
        "index_documents.ids[3]");
    assertRefused(
        () -> rerank.rerank(sharded(byId("corpus", "d0"), 65, 1)),
        Status.Code.INVALID_ARGUMENT,
        "index_documents.shards");
    assertRefused(
        () -> rerank.rerank(sharded(byId("corpus", "d0"), 2, 9)),
        Status.Code.INVALID_ARGUMENT,
        "index_documents.replicas");
    assertRefused(
        () -> rerank.rerank(sharded(byId("corpus", "d0"), -1, 1)),
        Status.Code.INVALID_ARGUMENT,
        "index_documents.shards");
  }

  @Test
  void unknownCollectionsAndIdsAreNotFoundNamingTheRequestsFields() throws Exception {
    var rerank = withIndex();

    assertRefused(
        () -> rerank.rerank(byId("nope", "d0")),
        Status.Code.NOT_FOUND,
        "index_documents.collection");
    assertRefused(
        () -> rerank.rerank(byId("corpus", "d0", "d1", "missing")),
        Status.Code.NOT_FOUND,
        "index_documents.ids[2]");
  }

  @Test
  void badIdListsAreInvalidArgumentBeforeAnythingIsFetched() throws Exception {
    var rerank = withIndex();

    assertRefused(
        () -> rerank.rerank(byId("corpus")), Status.Code.INVALID_ARGUMENT, "index_documents.ids");
    assertRefused(
        () -> rerank.rerank(byId("corpus", "d0", "d1", "d0")),
        Status.Code.INVALID_ARGUMENT,
        "index_documents.ids[2]");
    assertRefused(
        () ->
            rerank.rerank(
                byId("corpus", "d0").toBuilder()
                    .addCandidates(Candidate.newBuilder().setDocId("x").setText("inline"))
                    .build()),
        Status.Code.INVALID_ARGUMENT,
        "index_documents");
  }

  @Test
  void aCollectionWithoutStoredTextIsFailedPreconditionNamingTheCollection() throws Exception {
    var rerank = withIndex();

    assertRefused(
        () -> rerank.rerank(byId("old", "d0")),
        Status.Code.FAILED_PRECONDITION,
        "index_documents.collection");
  }

  @Test
  void manyIdsGoInSeveralCallsSplitWhenTheIndexRefusesTheirSizeAndKeepTheirOrder()
      throws Exception {
    List<String> ids = new ArrayList<>();
    RerankRequest.Builder inline =
        RerankRequest.newBuilder().setModelId("tiny-sigmoid").setQuery("apple");
    String[] words = {"apple", "banana", "cherry", "date", "fig", "grape"};
    for (int i = 0; i < 600; i++) {
      String id = "m" + i;
      String text = words[i % words.length] + " " + words[(i / words.length) % words.length];
      fakeIndex.documents.put(id, new String[] {id, "", text});
      ids.add(id);
      inline.addCandidates(Candidate.newBuilder().setDocId(id).setText(text));
    }
    fakeIndex.maxIdsPerCall = 100;
    var rerank = withIndex();

    RerankResponse byIds = rerank.rerank(byId("corpus", ids.toArray(String[]::new)));

    assertThat(byIds.getDocumentsList())
        .isEqualTo(rerank.rerank(inline.build()).getDocumentsList());
    assertThat(fakeIndex.calls.stream().filter(n -> n <= 100).mapToInt(Integer::intValue).sum())
        .as("every id fetched once, in calls the index accepts")
        .isEqualTo(600);
    assertThat(fakeIndex.calls).allMatch(n -> n <= 256, "at most 256 ids per call");
  }

  @Test
  void withoutAnIndexServiceCandidatesByIdAreFailedPrecondition() throws Exception {
    var rerank = rerankService(dev.tenbin.rerank.CandidateTexts.none());

    assertRefused(
        () -> rerank.rerank(byId("corpus", "d0")),
        Status.Code.FAILED_PRECONDITION,
        "index_documents");
  }
}
