package dev.tenbin.integration.cache;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tenbin.client.CallPolicy;
import dev.tenbin.client.encoder.EncoderClient;
import dev.tenbin.eval.cache.EmbeddingCache;
import dev.tenbin.eval.retrieval.DenseRetrieval;
import dev.tenbin.eval.retrieval.EncodeProgress;
import dev.tenbin.eval.retrieval.RetrievalResult;
import dev.tenbin.eval.services.Services;
import dev.tenbin.integration.services.EncoderReplica;
import dev.tenbin.proto.common.v1.Similarity;
import dev.tenbin.proto.encoder.v1.StreamEncodeDenseRequest;
import dev.tenbin.rpc.HostPort;
import dev.tenbin.rpc.ServiceEndpoint;
import dev.tenbin.rpc.ServiceTarget;
import dev.tenbin.rpc.ServingLimits;
import dev.tenbin.scoring.beir.BeirDataset;
import dev.tenbin.scoring.beir.BeirDatasetReader;
import dev.tenbin.testing.models.TinyModels;
import dev.tenbin.testing.rpc.LoopbackResolver;
import io.grpc.ForwardingServerCall;
import io.grpc.ForwardingServerCallListener;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Predicate;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The slices of one corpus spread over three real encoder servers behind one name (a headless
 * Service's {@code dns:///} name in a cluster, a test resolver here), three slices in flight: every
 * server encodes slices, and the cache holds exactly the records and slice records of one slice at
 * a time through one server, with the same rankings. A slice that fails while later ones finish
 * leaves those later slices stored and recorded, and the next run encodes only the failed one; a
 * server that drops a slice's stream after its first chunk (UNAVAILABLE) has the stream resumed by
 * the client's retry policy, and a server that refuses a slice's stream before any vector, with no
 * retries left, fails the run with UNAVAILABLE and the slice stays unrecorded.
 */
class SpreadSliceEncodeTest {
  private static final int SLICE = 4_096;
  private static final int SLICES = 4;
  private static final int DOCUMENTS = (SLICES - 1) * SLICE + 100;
  private static final int QUERIES = SlicedCorpus.QUERIES;
  private static final String MODEL = "tiny-dense";

  @TempDir Path tmp;

  private final List<AutoCloseable> started = new ArrayList<>();
  private Path models;
  private BeirDataset data;

  @BeforeEach
  void writeTheModelAndCorpus() throws Exception {
    models = tmp.resolve("models");
    TinyModels.dense(models, MODEL, false);
    data = BeirDatasetReader.read(SlicedCorpus.write(tmp.resolve("data"), DOCUMENTS));
  }

  @AfterEach
  void stopEverything() throws Exception {
    for (AutoCloseable resource : started.reversed()) {
      resource.close();
    }
  }

  @Test
  void slicesSpreadOverThreeServersStoreWhatOneServerAtATimeStores() throws Exception {
    RetrievalResult sequential = sequentialReference();

    List<EncoderReplica> replicas = replicas(3);
    try (Services services = balanced(replicas);
        EmbeddingCache cache = EmbeddingCache.open(tmp.resolve("spread"))) {
      warmUp(services.encoder(), replicas);
      replicas.forEach(replica -> replica.texts.set(0));
      RetrievalResult spread = run(retrieval(services, EncodeProgress.NONE, cache, 3));

      for (EncoderReplica replica : replicas) {
        assertThat(replica.texts.get())
            .as("each server encoded at least one slice, not only queries")
            .isGreaterThan(QUERIES);
      }
      assertThat(replicas.stream().mapToInt(replica -> replica.texts.get()).sum())
          .as("every document and query was sent once")
          .isEqualTo(DOCUMENTS + QUERIES);
      assertThat(spread.rankings()).isEqualTo(sequential.rankings());
      assertThat(spread.diagnostics()).isEqualTo(sequential.diagnostics());
      assertThat(records(tmp.resolve("spread"))).isEqualTo(records(tmp.resolve("sequential")));
      assertThat(sliceRecords(tmp.resolve("spread")))
          .isEqualTo(sliceRecords(tmp.resolve("sequential")))
          .hasSize(SLICES);

      List<String> notes = new ArrayList<>();
      RetrievalResult warm =
          run(retrieval(services, EncodeProgress.NONE.notingTo(notes::add), cache, 3));
      assertThat(notes)
          .containsExactly(
              "encoding documents with tiny-dense: all 4 slices were encoded before, read back");
      assertThat(warm.documentEncodeNanos()).isEqualTo(spread.documentEncodeNanos());
    }
  }

  @Test
  void aFailedSliceLeavesTheLaterOnesRecordedAndTheNextRunEncodesOnlyIt() throws Exception {
    RetrievalResult sequential = sequentialReference();

    AtomicBoolean failing = new AtomicBoolean(true);
    // The second slice (documents 4096..8191) fails on whichever server it reaches.
    ServerInterceptor failSecondSlice =
        failing(
            request -> failing.get() && request.getRequest().getTextsList().contains(text(SLICE)),
            0,
            Status.FAILED_PRECONDITION.withDescription("the second slice fails"));
    List<EncoderReplica> replicas = replicas(3, failSecondSlice);
    try (Services services = balanced(replicas);
        EmbeddingCache cache = EmbeddingCache.open(tmp.resolve("spread"))) {
      warmUp(services.encoder(), replicas);
      assertThatThrownBy(() -> run(retrieval(services, EncodeProgress.NONE, cache, 3)))
          .isInstanceOf(StatusRuntimeException.class)
          .hasMessageContaining("the second slice fails");
      assertThat(sliceRecords(tmp.resolve("spread")))
          .as("slices 1, 3 and 4 are recorded although slice 2 before them is not")
          .hasSize(SLICES - 1)
          .isSubsetOf(sliceRecords(tmp.resolve("sequential")));
      assertThat(cache.stats().misses()).isEqualTo(DOCUMENTS - SLICE);

      failing.set(false);
      replicas.forEach(replica -> replica.texts.set(0));
      List<String> notes = new ArrayList<>();
      RetrievalResult resumed =
          run(retrieval(services, EncodeProgress.NONE.notingTo(notes::add), cache, 3));
      assertThat(notes)
          .containsExactly(
              "encoding documents with tiny-dense: resuming at slice 2 of 4; 1 slices (4096"
                  + " documents) were encoded before, read back");
      assertThat(replicas.stream().mapToInt(replica -> replica.texts.get()).sum())
          .as("only the failed slice and the queries were encoded")
          .isEqualTo(SLICE + QUERIES);
      assertThat(resumed.rankings()).isEqualTo(sequential.rankings());
      assertThat(records(tmp.resolve("spread"))).isEqualTo(records(tmp.resolve("sequential")));
      assertThat(sliceRecords(tmp.resolve("spread")))
          .isEqualTo(sliceRecords(tmp.resolve("sequential")));
    }
  }

  @Test
  void aServerDroppingASliceMidStreamIsRetriedOrFailsWithTheSliceUnrecorded() throws Exception {
    RetrievalResult sequential = sequentialReference();

    AtomicBoolean armed = new AtomicBoolean(false);
    ServerInterceptor dropsOneStream =
        failing(
            request -> request.getRequest().getTextsCount() > QUERIES && armed.getAndSet(false),
            1,
            Status.UNAVAILABLE.withDescription("replica stopping"));
    AtomicBoolean refusing = new AtomicBoolean(false);
    ServerInterceptor refusesStreams =
        failing(
            request -> request.getRequest().getTextsCount() > QUERIES && refusing.get(),
            0,
            Status.UNAVAILABLE.withDescription("replica stopping"));
    List<EncoderReplica> replicas = new ArrayList<>(replicas(2));
    replicas.add(replica("dropping", dropsOneStream, refusesStreams));
    try (Services services = balanced(replicas);
        EmbeddingCache cache = EmbeddingCache.open(tmp.resolve("spread"))) {
      warmUp(services.encoder(), replicas);
      armed.set(true);
      RetrievalResult retried = run(retrieval(services, EncodeProgress.NONE, cache, 3));
      assertThat(armed).as("the dropping server cut a slice's stream").isFalse();
      assertThat(retried.rankings()).isEqualTo(sequential.rankings());
      assertThat(records(tmp.resolve("spread"))).isEqualTo(records(tmp.resolve("sequential")));
      assertThat(sliceRecords(tmp.resolve("spread")))
          .isEqualTo(sliceRecords(tmp.resolve("sequential")));
    }

    try (Services services = balanced(replicas);
        EmbeddingCache cache = EmbeddingCache.open(tmp.resolve("no-retries"))) {
      EncoderClient once =
          new EncoderClient(channel(replicas), new CallPolicy(Duration.ofSeconds(60), 1));
      replicas.forEach(replica -> replica.served.set(0));
      warmUp(once, replicas);
      // A stream that handed back vectors is resumed whatever the attempts (CallPolicy): only
      // attempts without progress count, so the server now refuses a slice before any vector.
      refusing.set(true);
      DenseRetrieval noRetries =
          new DenseRetrieval(services.index(), once, EncodeProgress.NONE)
              .withSlicesInFlight(3)
              .withEmbeddingCache(cache);
      assertThatThrownBy(() -> run(noRetries))
          .isInstanceOfSatisfying(
              StatusRuntimeException.class,
              failure ->
                  assertThat(failure.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE))
          .hasMessageContaining("replica stopping");
      assertThat(sliceRecords(tmp.resolve("no-retries")))
          .as("the cut slice is not recorded; the slices in flight with it are")
          .hasSizeBetween(1, SLICES - 1)
          .isSubsetOf(sliceRecords(tmp.resolve("sequential")));
    }
  }

  /** One slice at a time through one server, into the cache folder {@code sequential}. */
  private RetrievalResult sequentialReference() throws Exception {
    EncoderReplica one = replica("one");
    try (Services services =
            Services.connect(
                null, new ServiceEndpoint("127.0.0.1", one.port()), models, tmp.resolve("hub"));
        EmbeddingCache cache = EmbeddingCache.open(tmp.resolve("sequential"))) {
      assertThat(services.encodeSlicesInFlight())
          .as("a direct address is one replica")
          .isEqualTo(1);
      return run(retrieval(services, EncodeProgress.NONE, cache, 1));
    } finally {
      one.close();
    }
  }

  private EncoderReplica replica(String name, ServerInterceptor... faults) {
    EncoderReplica replica =
        new EncoderReplica(models, tmp.resolve(name + "-cache"), ServingLimits.defaults(), faults);
    started.add(replica);
    return replica;
  }

  private List<EncoderReplica> replicas(int count, ServerInterceptor... faults) {
    List<EncoderReplica> replicas = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      replicas.add(replica("replica-" + i, faults));
    }
    return replicas;
  }

  /**
   * The orchestrator's services with its encoder behind one balanced name over {@code replicas}.
   */
  private Services balanced(List<EncoderReplica> replicas) {
    LoopbackResolver resolver = resolver(replicas);
    return Services.connect(
        null,
        new ServiceEndpoint(
            List.of(
                new ServiceTarget(
                    resolver.scheme(), new HostPort("tenbin-encoder-headless", 50051))),
            null),
        models,
        tmp.resolve("hub"));
  }

  private LoopbackResolver resolver(List<EncoderReplica> replicas) {
    LoopbackResolver resolver =
        new LoopbackResolver(replicas.stream().map(EncoderReplica::port).toList());
    started.add(resolver);
    return resolver;
  }

  private ManagedChannel channel(List<EncoderReplica> replicas) {
    LoopbackResolver resolver = resolver(replicas);
    ManagedChannel channel = EncoderReplica.balancedChannel(resolver);
    started.add(
        () -> {
          channel.shutdownNow();
          channel.awaitTermination(5, TimeUnit.SECONDS);
        });
    return channel;
  }

  /** Calls until every server has had one, so round_robin has every connection ready. */
  private static void warmUp(EncoderClient client, List<EncoderReplica> replicas) {
    for (int i = 0; i < 100 && replicas.stream().anyMatch(r -> r.served.get() == 0); i++) {
      client.encodeDense(MODEL, List.of("warming up " + i), true, 0);
    }
    assertThat(replicas).allSatisfy(replica -> assertThat(replica.served.get()).isPositive());
  }

  private static DenseRetrieval retrieval(
      Services services, EncodeProgress progress, EmbeddingCache cache, int slicesInFlight) {
    return new DenseRetrieval(services.index(), services.encoder(), progress)
        .withSlicesInFlight(slicesInFlight)
        .withEmbeddingCache(cache);
  }

  private RetrievalResult run(DenseRetrieval retrieval) {
    return retrieval
        .withoutLatencyProbe()
        .run(data, MODEL, DenseRetrieval.QueryEncoding.FULL, Similarity.SIMILARITY_COSINE, 10);
  }

  /** The text of document {@code i} as the encoder is sent it (no title). */
  private static String text(int i) {
    return SlicedCorpus.text(i);
  }

  /**
   * A server fault: a {@code StreamEncodeDense} call whose request {@code matches} sends {@code
   * chunks} chunks and is then closed with {@code status}.
   */
  private static ServerInterceptor failing(
      Predicate<StreamEncodeDenseRequest> matches, int chunks, Status status) {
    return new ServerInterceptor() {
      @Override
      public <Q, R> ServerCall.Listener<Q> interceptCall(
          ServerCall<Q, R> call, Metadata headers, ServerCallHandler<Q, R> next) {
        AtomicBoolean matched = new AtomicBoolean();
        ServerCall<Q, R> cutting =
            new ForwardingServerCall.SimpleForwardingServerCall<>(call) {
              private int sent;
              private boolean cut;

              @Override
              public synchronized void sendMessage(R message) {
                if (cut) {
                  return;
                }
                if (matched.get() && sent == chunks) {
                  cut = true;
                  super.close(status, new Metadata());
                  return;
                }
                sent++;
                super.sendMessage(message);
              }

              @Override
              public synchronized void close(Status closing, Metadata trailers) {
                if (!cut) {
                  super.close(closing, trailers);
                }
              }
            };
        return new ForwardingServerCallListener.SimpleForwardingServerCallListener<>(
            next.startCall(cutting, headers)) {
          @Override
          public void onMessage(Q message) {
            if (message instanceof StreamEncodeDenseRequest request && matches.test(request)) {
              matched.set(true);
            }
            super.onMessage(message);
          }
        };
      }
    };
  }

  /**
   * Every record of every key space under {@code cache}, whole (hash, length, checksum, payload),
   * by key space folder and text hash: the cache's content, whatever order the records were
   * appended in.
   */
  private static TreeMap<String, String> records(Path cache) throws IOException {
    TreeMap<String, String> records = new TreeMap<>();
    try (Stream<Path> files = Files.walk(cache)) {
      for (Path segment :
          files.filter(f -> f.getFileName().toString().startsWith("segment-")).toList()) {
        ByteBuffer bytes =
            ByteBuffer.wrap(Files.readAllBytes(segment)).order(ByteOrder.LITTLE_ENDIAN);
        while (bytes.remaining() >= 40) {
          int start = bytes.position();
          int length = bytes.getInt(start + 32);
          byte[] record = new byte[40 + length];
          bytes.get(record);
          String hash = HexFormat.of().formatHex(record, 0, 32);
          String previous =
              records.put(
                  cache.relativize(segment.getParent()) + "/" + hash,
                  HexFormat.of().formatHex(record));
          assertThat(previous).as("a text is stored once").isNull();
        }
      }
    }
    assertThat(records).isNotEmpty();
    return records;
  }

  /** The slices recorded under {@code cache}: key space folder, slice digest and text count. */
  private static TreeSet<String> sliceRecords(Path cache) throws IOException {
    TreeSet<String> slices = new TreeSet<>();
    try (Stream<Path> files = Files.walk(cache)) {
      for (Path file : files.filter(f -> f.endsWith("slices.tsv")).toList()) {
        for (String line : Files.readAllLines(file)) {
          String[] fields = line.split("\t");
          slices.add(cache.relativize(file.getParent()) + "/" + fields[0] + "\t" + fields[1]);
        }
      }
    }
    return slices;
  }
}
