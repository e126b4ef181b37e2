package dev.tenbin.index.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenbin.proto.common.v1.DenseVector;
import dev.tenbin.proto.common.v1.Similarity;
import dev.tenbin.proto.index.v1.CollectionSpec;
import dev.tenbin.proto.index.v1.CollectionState;
import dev.tenbin.proto.index.v1.CreateCollectionRequest;
import dev.tenbin.proto.index.v1.DenseOptions;
import dev.tenbin.proto.index.v1.DescribeCollectionRequest;
import dev.tenbin.proto.index.v1.Document;
import dev.tenbin.proto.index.v1.Family;
import dev.tenbin.proto.index.v1.IndexServiceGrpc;
import dev.tenbin.proto.index.v1.IngestRequest;
import dev.tenbin.proto.index.v1.IngestResponse;
import dev.tenbin.proto.index.v1.Query;
import dev.tenbin.proto.index.v1.SearchRequest;
import io.grpc.ManagedChannel;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.StreamObserver;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * kill -9 of a standalone index service in the middle of an ingest, then a restart on the same data
 * directory: the collection opens at a batch boundary holding at least every acknowledged batch,
 * all families agree, and re-sending everything completes it without duplicates. Rounds: system
 * property {@code tenbin.kill.rounds} (default 1).
 */
class IndexServiceKillIT {
  private static final int BATCH = 100;
  private static final int BATCHES = 20;
  private static final int DIMENSION = 16;
  private static final Pattern LISTENING = Pattern.compile("listening on [^:]+:(\\d+)");
  @TempDir Path dataDir;

  /** A standalone index service in a child JVM and a channel to it. */
  private record Child(Process process, ManagedChannel channel) {
    IndexServiceGrpc.IndexServiceBlockingStub index() {
      return IndexServiceGrpc.newBlockingStub(channel).withDeadlineAfter(60, TimeUnit.SECONDS);
    }

    void kill() throws InterruptedException {
      channel.shutdownNow();
      process.destroyForcibly();
      process.waitFor(30, TimeUnit.SECONDS);
    }
  }

  private Child start() throws Exception {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    // As the launcher runs it (the root pom's tenbin.jvm.args).
    command.addAll(
        List.of(
            "--add-modules",
            "jdk.incubator.vector",
            "--enable-native-access=ALL-UNNAMED",
            "-Xss4m"));
    command.add("-cp");
    command.add(System.getProperty("java.class.path"));
    command.add(IndexServer.class.getName());
    command.addAll(
        List.of(
            "--host",
            "127.0.0.1",
            "--port",
            "0",
            "--metrics-port",
            "-1",
            "--data-dir",
            dataDir.toString()));
    Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
    BufferedReader out =
        new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
    CompletableFuture<Integer> port = new CompletableFuture<>();
    Thread reader =
        new Thread(
            () -> {
              try {
                for (String line; (line = out.readLine()) != null; ) {
                  System.out.println("[index-service] " + line);
                  Matcher matcher = LISTENING.matcher(line);
                  if (matcher.find()) {
                    port.complete(Integer.parseInt(matcher.group(1)));
                  }
                }
              } catch (java.io.IOException ended) {
                // The child is gone.
              }
              port.completeExceptionally(
                  new IllegalStateException("the index service exited before listening"));
            });
    reader.setDaemon(true);
    reader.start();
    ManagedChannel channel =
        NettyChannelBuilder.forAddress("127.0.0.1", port.get(60, TimeUnit.SECONDS))
            .usePlaintext()
            .build();
    return new Child(process, channel);
  }

  private static IngestRequest batch(int b) {
    IngestRequest.Builder request = IngestRequest.newBuilder().setCollection("c");
    for (int i = 0; i < BATCH; i++) {
      int n = b * BATCH + i;
      DenseVector.Builder vector = DenseVector.newBuilder();
      for (int d = 0; d < DIMENSION; d++) {
        vector.addValues((float) Math.sin(n * 31 + d));
      }
      request.addDocuments(
          Document.newBuilder()
              .setId(String.format("doc-%05d", n))
              .setText("apple document " + n)
              .setDense(vector));
    }
    return request.build();
  }

  /**
   * Streams every batch; counts acknowledgements; when {@code killAfter} arrived, kills the child.
   */
  private static long ingest(Child child, int killAfter) throws Exception {
    AtomicLong acked = new AtomicLong();
    CountDownLatch ended = new CountDownLatch(1);
    StreamObserver<IngestRequest> requests =
        IndexServiceGrpc.newStub(child.channel())
            .ingest(
                new StreamObserver<>() {
                  @Override
                  public void onNext(IngestResponse ack) {
                    acked.incrementAndGet();
                  }

                  @Override
                  public void onError(Throwable t) {
                    ended.countDown();
                  }

                  @Override
                  public void onCompleted() {
                    ended.countDown();
                  }
                });
    for (int b = 0; b < BATCHES; b++) {
      requests.onNext(batch(b));
      if (killAfter > 0 && acked.get() >= killAfter) {
        break;
      }
      while (killAfter > 0 && acked.get() < b - 2 && ended.getCount() > 0) {
        Thread.sleep(1); // keep a few batches in flight, so the kill lands mid-write
      }
    }
    if (killAfter > 0) {
      while (acked.get() < killAfter && ended.getCount() > 0) {
        Thread.sleep(1);
      }
      child.kill();
    } else {
      requests.onCompleted();
    }
    ended.await(60, TimeUnit.SECONDS);
    return acked.get();
  }

  @Test
  void killNineMidIngestLeavesTheCollectionAtABatchBoundaryAndReSendingCompletesIt()
      throws Exception {
    int rounds = Integer.getInteger("tenbin.kill.rounds", 1);
    Child child = start();
    child
        .index()
        .createCollection(
            CreateCollectionRequest.newBuilder()
                .setSpec(CollectionSpec.newBuilder().setName("c").setDenseDimension(DIMENSION))
                .build());
    for (int round = 0; round < rounds; round++) {
      long acked = ingest(child, 3 + round % 7);
      child = start();
      var description =
          child
              .index()
              .describeCollection(DescribeCollectionRequest.newBuilder().setName("c").build())
              .getCollection();
      assertThat(description.getState()).isEqualTo(CollectionState.COLLECTION_STATE_READY);
      long count = description.getDocumentCount();
      assertThat(count % BATCH).as("round %d: a batch boundary", round).isZero();
      assertThat(count)
          .as("round %d: every acknowledged batch survives", round)
          .isGreaterThanOrEqualTo(Math.min(acked, BATCHES) * BATCH);
      assertFamiliesAgree(child, count);
      System.out.printf(
          "kill round %d: %d batches acknowledged, %d documents after restart%n",
          round, acked, count);
      // Re-sending everything is idempotent and completes the collection.
      assertThat(ingest(child, 0)).isEqualTo(BATCHES);
      assertFamiliesAgree(child, (long) BATCHES * BATCH);
      child
          .index()
          .dropCollection(
              dev.tenbin.proto.index.v1.DropCollectionRequest.newBuilder().setName("c").build());
      child
          .index()
          .createCollection(
              CreateCollectionRequest.newBuilder()
                  .setSpec(CollectionSpec.newBuilder().setName("c").setDenseDimension(DIMENSION))
                  .build());
    }
    child.kill();
  }

  /** BM25 and dense both see exactly {@code count} documents. */
  private static void assertFamiliesAgree(Child child, long count) {
    assertThat(
            child
                .index()
                .describeCollection(DescribeCollectionRequest.newBuilder().setName("c").build())
                .getCollection()
                .getDocumentCount())
        .isEqualTo(count);
    int topK = (int) Math.max(1, count);
    var bm25 =
        child
            .index()
            .search(
                SearchRequest.newBuilder()
                    .setCollection("c")
                    .setFamily(Family.FAMILY_BM25)
                    .setTopK(topK)
                    .addQueries(Query.newBuilder().setId("q").setText("apple"))
                    .build());
    DenseVector.Builder query = DenseVector.newBuilder();
    for (int d = 0; d < DIMENSION; d++) {
      query.addValues(1);
    }
    var dense =
        child
            .index()
            .search(
                SearchRequest.newBuilder()
                    .setCollection("c")
                    .setFamily(Family.FAMILY_DENSE)
                    .setTopK(topK)
                    .setDense(DenseOptions.newBuilder().setSimilarity(Similarity.SIMILARITY_COSINE))
                    .addQueries(Query.newBuilder().setId("q").setDense(query))
                    .build());
    assertThat(bm25.getRankings(0).getDocumentsCount()).isEqualTo(count);
    assertThat(dense.getRankings(0).getDocumentsCount()).isEqualTo(count);
  }
}
