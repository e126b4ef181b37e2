package dev.tenbin.drill;

import dev.tenbin.client.index.IndexClient;
import dev.tenbin.proto.common.v1.DenseVector;
import dev.tenbin.proto.common.v1.Similarity;
import dev.tenbin.proto.index.v1.CollectionSpec;
import dev.tenbin.proto.index.v1.CreateCollectionRequest;
import dev.tenbin.proto.index.v1.DenseOptions;
import dev.tenbin.proto.index.v1.Document;
import dev.tenbin.proto.index.v1.Family;
import dev.tenbin.proto.index.v1.IngestRequest;
import dev.tenbin.proto.index.v1.IngestResponse;
import dev.tenbin.proto.index.v1.Query;
import dev.tenbin.proto.index.v1.SearchRequest;
import dev.tenbin.rpc.StatusMapper;
import dev.tenbin.testing.rpc.LoopbackPorts;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * The ingest that used to break a collection for good: one batch holding a valid document and one
 * whose id is 40,000 characters, sent to a standalone {@code tenbin serve index}. The batch must be
 * refused whole (INVALID_ARGUMENT naming {@code documents[1].id}, a short message), and the
 * collection and the service must stay whole: Describe, List, BM25 and dense Search answer, the
 * valid document is absent, a clean batch then commits — and all of it again after a restart.
 */
public final class LongIdDrill {
  private static final int DIMENSION = 8;

  private LongIdDrill() {}

  public static DrillResult run(Path work, DrillLog log) throws Exception {
    int port = LoopbackPorts.reserve();
    List<String> args =
        List.of(
            "serve",
            "index",
            "--port",
            Integer.toString(port),
            "--data-dir",
            work.resolve("index").toString());
    List<String> failures = new ArrayList<>();
    String refusal;
    try (ChildTenbin first = ChildTenbin.start(work, "index-1", args)) {
      first.awaitListeningPort(Duration.ofMinutes(2));
      ManagedChannel channel = DrillClients.channel(port);
      try {
        IndexClient index = IndexClient.of(channel).withDeadline(Duration.ofSeconds(30));
        index.createCollection(
            CreateCollectionRequest.newBuilder()
                .setSpec(
                    CollectionSpec.newBuilder()
                        .setName("drill")
                        .setLanguage("en")
                        .setDenseDimension(DIMENSION))
                .build());
        Ingested bad =
            ingest(
                channel,
                List.of(
                    document("valid-1", "a valid document about rivers"),
                    document("x".repeat(40_000), "the long id")));
        Status status = bad.status();
        String field = bad.field();
        refusal =
            status.getCode()
                + " naming "
                + field
                + ", message of "
                + (status.getDescription() == null ? 0 : status.getDescription().length())
                + " characters";
        log.line("bad batch: " + refusal);
        if (status.getCode() != Status.Code.INVALID_ARGUMENT
            || !"documents[1].id".equals(field)
            || status.getDescription() == null
            || status.getDescription().length() > 1_000) {
          failures.add("the bad batch was answered " + refusal);
        }
        check(channel, 0, failures, "after the bad batch");
        Status clean =
            ingest(
                    channel,
                    List.of(
                        document("valid-1", "a valid document about rivers"),
                        document("valid-2", "mountains")))
                .status();
        if (!clean.isOk()) {
          failures.add("a clean batch after the bad one failed: " + clean);
        }
        check(channel, 2, failures, "after a clean batch");
      } finally {
        DrillClients.close(channel);
      }
      first.terminate();
      if (first.awaitExit(Duration.ofSeconds(60)) == -1 || first.crashed()) {
        failures.add("the index service did not stop cleanly on SIGTERM");
      }
    }
    try (ChildTenbin second = ChildTenbin.start(work, "index-2", args)) {
      second.awaitListeningPort(Duration.ofMinutes(2));
      ManagedChannel channel = DrillClients.channel(port);
      try {
        check(channel, 2, failures, "after a restart");
      } finally {
        DrillClients.close(channel);
      }
    }
    failures.forEach(failure -> log.line("FAILED: " + failure));
    return new DrillResult(
        "long-id ingest",
        "`tenbin serve index`, collection with BM25 and 8-dim dense vectors",
        "one batch: a valid document + a document whose id is 40,000 characters",
        "batch refused whole ("
            + refusal
            + "); "
            + (failures.isEmpty()
                ? "Describe, List, BM25 and dense Search healthy, valid document absent, next batch committed, same after a restart"
                : String.join("; ", failures)),
        failures.isEmpty());
  }

  private static Document document(String id, String text) {
    DenseVector.Builder vector = DenseVector.newBuilder();
    for (int d = 0; d < DIMENSION; d++) {
      vector.addValues((float) Math.sin(id.hashCode() + d));
    }
    return Document.newBuilder().setId(id).setText(text).setDense(vector).build();
  }

  /** How an ingest stream ended, and the field its error named. */
  private record Ingested(Status status, String field) {}

  /** Sends one batch on a fresh Ingest stream; OK when it was acknowledged. */
  private static Ingested ingest(ManagedChannel channel, List<Document> batch) throws Exception {
    CompletableFuture<Status> done = new CompletableFuture<>();
    CompletableFuture<Throwable> failed = new CompletableFuture<>();
    StreamObserver<IngestRequest> requests =
        IndexClient.of(channel)
            .ingest(
                io.grpc.Deadline.after(60, TimeUnit.SECONDS),
                new io.grpc.stub.ClientResponseObserver<IngestRequest, IngestResponse>() {
                  @Override
                  public void beforeStart(
                      io.grpc.stub.ClientCallStreamObserver<IngestRequest> requestStream) {}

                  @Override
                  public void onNext(IngestResponse ack) {}

                  @Override
                  public void onError(Throwable failure) {
                    failed.complete(failure);
                    done.complete(Status.fromThrowable(failure));
                  }

                  @Override
                  public void onCompleted() {
                    done.complete(Status.OK);
                  }
                });
    requests.onNext(
        IngestRequest.newBuilder().setCollection("drill").addAllDocuments(batch).build());
    requests.onCompleted();
    Status status = done.get(90, TimeUnit.SECONDS);
    Throwable failure = failed.getNow(null);
    return new Ingested(status, failure == null ? null : StatusMapper.violatedField(failure));
  }

  /** Describe, List, BM25 and dense Search answer, with {@code documents} documents committed. */
  private static void check(
      ManagedChannel channel, long documents, List<String> failures, String when) {
    try {
      IndexClient index = IndexClient.of(channel).withDeadline(Duration.ofSeconds(30));
      long count = index.describeCollection("drill").getDocumentCount();
      if (count != documents) {
        failures.add(when + ": " + count + " documents, expected " + documents);
      }
      index.listCollections();
      int bm25 =
          index
              .search(
                  SearchRequest.newBuilder()
                      .setCollection("drill")
                      .setFamily(Family.FAMILY_BM25)
                      .setTopK(10)
                      .addQueries(Query.newBuilder().setId("q").setText("rivers"))
                      .build())
              .getRankings(0)
              .getDocumentsCount();
      int dense =
          index
              .search(
                  SearchRequest.newBuilder()
                      .setCollection("drill")
                      .setFamily(Family.FAMILY_DENSE)
                      .setTopK(10)
                      .setDense(
                          DenseOptions.newBuilder().setSimilarity(Similarity.SIMILARITY_COSINE))
                      .addQueries(
                          Query.newBuilder().setId("q").setDense(document("q", "").getDense()))
                      .build())
              .getRankings(0)
              .getDocumentsCount();
      if (dense != documents || bm25 > documents || (documents > 0 && bm25 == 0)) {
        failures.add(
            when
                + ": search found "
                + bm25
                + " (BM25) and "
                + dense
                + " (dense) documents of "
                + documents);
      }
      if (!DrillClients.serving(channel)) {
        failures.add(when + ": health is not SERVING");
      }
    } catch (RuntimeException e) {
      failures.add(when + ": " + e);
    }
  }
}
