package dev.tenbin.drill;

import dev.tenbin.proto.encoder.v1.EncodeDenseRequest;
import dev.tenbin.proto.encoder.v1.EncoderServiceGrpc;
import dev.tenbin.proto.encoder.v1.InputRole;
import dev.tenbin.proto.index.v1.Family;
import dev.tenbin.proto.index.v1.IndexServiceGrpc;
import dev.tenbin.proto.index.v1.Query;
import dev.tenbin.proto.index.v1.SearchRequest;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Queue;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;

/**
 * The client load beside the jobs: closed-loop clients calling the encoder ({@code EncodeDense} of
 * {@value #TEXTS_PER_CALL} texts) and the index (a BM25 {@code Search} of one query on a collection
 * of its own), every call timed. A client sends its next call once the previous one is answered and
 * its pacing interval has passed, so a kind's clients together never offer more than its target
 * rate. After UNAVAILABLE (the service down) a client pauses {@value #UNAVAILABLE_PAUSE_MILLIS} ms
 * and resets the channel's reconnect backoff, so a restarted service is reached at once.
 */
final class ClientLoad implements AutoCloseable {
  static final int TEXTS_PER_CALL = 8;
  private static final long UNAVAILABLE_PAUSE_MILLIS = 200;
  private static final long DEADLINE_SECONDS = 30;

  /** What a call asks for. */
  enum Kind {
    ENCODE,
    SEARCH;

    String label() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  /**
   * One timed call.
   *
   * @param kind what it asked for
   * @param atMillis when it was sent, in milliseconds since the load began
   * @param millis how long it took to its status
   * @param code its status
   */
  record Call(Kind kind, long atMillis, long millis, Status.Code code) {
    static final String CSV_HEADER = "at_ms,kind,code,latency_ms";

    String csvLine() {
      return atMillis + "," + kind.label() + "," + code + "," + millis;
    }
  }

  private final ManagedChannel encoder;
  private final ManagedChannel index;
  private final String model;
  private final List<String> texts;
  private final List<String> queries;
  private final String collection;
  private final Queue<Call> calls = new ConcurrentLinkedQueue<>();
  private final List<Thread> clients = new ArrayList<>();
  private volatile boolean running = true;

  /**
   * @param texts what encode calls send, {@value #TEXTS_PER_CALL} at a time
   * @param queries what search calls send, one at a time
   * @param collection the BM25 collection searched
   */
  ClientLoad(
      ManagedChannel encoder,
      ManagedChannel index,
      String model,
      List<String> texts,
      List<String> queries,
      String collection) {
    this.encoder = encoder;
    this.index = index;
    this.model = model;
    this.texts = List.copyOf(texts);
    this.queries = List.copyOf(queries);
    this.collection = collection;
  }

  /**
   * Calls per second that one client, sending back to back, gets answered OK over {@code length},
   * after three untimed calls (the first loads the model).
   */
  double probe(Kind kind, Duration length) {
    SplittableRandom random = new SplittableRandom(kind.ordinal());
    for (int i = 0; i < 3; i++) {
      Status.Code code = call(kind, random, Duration.ofMinutes(2));
      if (code != Status.Code.OK) {
        throw new IllegalStateException(
            "a " + kind.label() + " call before the load ended " + code + " (see the logs)");
      }
    }
    int ok = 0;
    long start = System.nanoTime();
    long end = start + length.toNanos();
    while (System.nanoTime() < end) {
      ok += call(kind, random, Duration.ofSeconds(DEADLINE_SECONDS)) == Status.Code.OK ? 1 : 0;
    }
    return ok / ((System.nanoTime() - start) / 1e9);
  }

  /**
   * Starts {@code clientCount} clients of {@code kind} offering {@code callsPerSecond} together;
   * their calls are timed from {@code originNanos} ({@link System#nanoTime()} at the load's start).
   */
  void start(Kind kind, int clientCount, double callsPerSecond, long seed, long originNanos) {
    long intervalNanos = (long) (clientCount * 1e9 / callsPerSecond);
    for (int c = 0; c < clientCount; c++) {
      SplittableRandom random = new SplittableRandom(seed * 31 + kind.ordinal() * 7L + c);
      clients.add(
          Thread.ofPlatform()
              .name("soak-" + kind.label() + "-" + (c + 1))
              .daemon()
              .start(() -> runClient(kind, intervalNanos, random, originNanos)));
    }
  }

  private void runClient(Kind kind, long intervalNanos, SplittableRandom random, long originNanos) {
    long next = System.nanoTime();
    while (running) {
      long wait = next - System.nanoTime();
      if (wait > 0) {
        sleep(TimeUnit.NANOSECONDS.toMillis(wait) + 1);
        continue;
      }
      long sent = System.nanoTime();
      Status.Code code = call(kind, random, Duration.ofSeconds(DEADLINE_SECONDS));
      long answered = System.nanoTime();
      calls.add(
          new Call(
              kind,
              TimeUnit.NANOSECONDS.toMillis(sent - originNanos),
              TimeUnit.NANOSECONDS.toMillis(answered - sent),
              code));
      next = sent + intervalNanos;
      if (code == Status.Code.UNAVAILABLE) {
        (kind == Kind.ENCODE ? encoder : index).resetConnectBackoff();
        sleep(UNAVAILABLE_PAUSE_MILLIS);
      }
    }
  }

  private Status.Code call(Kind kind, SplittableRandom random, Duration deadline) {
    try {
      switch (kind) {
        case ENCODE -> {
          EncodeDenseRequest.Builder request =
              EncodeDenseRequest.newBuilder()
                  .setModelId(model)
                  .setRole(InputRole.INPUT_ROLE_DOCUMENT);
          for (int t = 0; t < TEXTS_PER_CALL; t++) {
            request.addTexts(texts.get(random.nextInt(texts.size())));
          }
          EncoderServiceGrpc.newBlockingStub(encoder)
              .withDeadlineAfter(deadline.toMillis(), TimeUnit.MILLISECONDS)
              .encodeDense(request.build());
        }
        case SEARCH ->
            IndexServiceGrpc.newBlockingStub(index)
                .withDeadlineAfter(deadline.toMillis(), TimeUnit.MILLISECONDS)
                .search(
                    SearchRequest.newBuilder()
                        .setCollection(collection)
                        .setFamily(Family.FAMILY_BM25)
                        .setTopK(10)
                        .addQueries(
                            Query.newBuilder()
                                .setId("q")
                                .setText(queries.get(random.nextInt(queries.size()))))
                        .build());
      }
      return Status.Code.OK;
    } catch (StatusRuntimeException e) {
      return e.getStatus().getCode();
    }
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Every call made so far, in the order they were answered. */
  List<Call> calls() {
    return List.copyOf(calls);
  }

  /** Stops the clients and waits for their last calls (each has a 30 s deadline). */
  @Override
  public void close() throws InterruptedException {
    running = false;
    for (Thread client : clients) {
      client.join(Duration.ofSeconds(DEADLINE_SECONDS + 10));
    }
  }
}
