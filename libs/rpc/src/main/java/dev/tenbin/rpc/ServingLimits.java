package dev.tenbin.rpc;

import java.time.Duration;

/**
 * How much a server takes on at once, and how it notices dead clients.
 *
 * <p>Calls run on a fixed pool of {@code handlerThreads} named {@code grpc-handler-N}; at most
 * {@code maxConcurrentCalls} calls are admitted at a time and the next one is refused at once with
 * {@code RESOURCE_EXHAUSTED} and a {@code google.rpc.RetryInfo} of {@code retryAfter} (the refusal
 * runs on a separate small pool, so it is immediate even when every handler thread is busy). Health
 * checks are never refused. Admitted calls beyond the thread count wait in the pool's queue, which
 * therefore holds at most {@code maxConcurrentCalls} entries.
 *
 * @param handlerThreads threads running service methods
 * @param maxConcurrentCalls calls admitted at once over all connections
 * @param maxConcurrentCallsPerConnection HTTP/2 streams one connection may have open (beyond,
 *     clients queue locally)
 * @param keepAliveTime ping a connection after this long without traffic
 * @param keepAliveTimeout drop the connection (and cancel its calls) when a ping is not answered
 *     within this
 * @param maxConnectionIdle close a connection that has had no call for this long
 * @param maxConnectionAge ask a client to close a connection this long (give or take 10%) after it
 *     opened (an HTTP/2 GOAWAY: it opens a new one, resolving the service's name again, so replicas
 *     added since get calls); zero never does
 * @param maxConnectionAgeGrace how long calls open on a connection past its age may still run
 *     before it is closed under them
 * @param maxMetadataBytes largest request header block (metadata) accepted
 * @param retryAfter the retry delay sent with an admission refusal
 */
public record ServingLimits(
    int handlerThreads,
    int maxConcurrentCalls,
    int maxConcurrentCallsPerConnection,
    Duration keepAliveTime,
    Duration keepAliveTimeout,
    Duration maxConnectionIdle,
    Duration maxConnectionAge,
    Duration maxConnectionAgeGrace,
    int maxMetadataBytes,
    Duration retryAfter) {
  public static final Duration DEFAULT_KEEPALIVE_TIME = Duration.ofSeconds(60);
  public static final Duration DEFAULT_KEEPALIVE_TIMEOUT = Duration.ofSeconds(20);
  public static final Duration DEFAULT_MAX_CONNECTION_IDLE = Duration.ofMinutes(15);

  /**
   * Connections live as long as they are used, unless told otherwise (one server, no balancing).
   */
  public static final Duration DEFAULT_MAX_CONNECTION_AGE = Duration.ZERO;

  /**
   * Calls past a connection's age may run this long: the longest calls Tenbin makes (a streamed
   * encoding of a large corpus, an ingest stream) take minutes, and cutting them fails the work.
   */
  public static final Duration DEFAULT_MAX_CONNECTION_AGE_GRACE = Duration.ofMinutes(30);

  public static final int DEFAULT_MAX_METADATA_BYTES = 8192;
  public static final Duration DEFAULT_RETRY_AFTER = Duration.ofSeconds(1);

  /**
   * Clients may ping this often at most, and only while a call is open: Tenbin's clients ping every
   * {@link ServiceTarget#KEEPALIVE_TIME} (60 s) with calls open and never without.
   */
  public static final Duration PERMIT_KEEPALIVE_TIME = Duration.ofSeconds(30);

  public ServingLimits {
    if (handlerThreads < 1) {
      throw new IllegalArgumentException(
          "--handler-threads must be at least 1, got " + handlerThreads);
    }
    if (maxConcurrentCalls < 1) {
      throw new IllegalArgumentException(
          "--max-concurrent-calls must be at least 1, got " + maxConcurrentCalls);
    }
    if (maxConcurrentCallsPerConnection < 1) {
      throw new IllegalArgumentException(
          "--max-concurrent-calls-per-connection must be at least 1, got "
              + maxConcurrentCallsPerConnection);
    }
    if (maxMetadataBytes < 1024) {
      throw new IllegalArgumentException(
          "--max-metadata-bytes must be at least 1024, got " + maxMetadataBytes);
    }
    requirePositive(keepAliveTime, "--keepalive-seconds");
    requirePositive(keepAliveTimeout, "--keepalive-timeout-seconds");
    requirePositive(maxConnectionIdle, "--max-connection-idle-seconds");
    if (maxConnectionAge == null || maxConnectionAge.isNegative()) {
      throw new IllegalArgumentException(
          "--max-connection-age-seconds must be 0 (never) or positive");
    }
    requirePositive(maxConnectionAgeGrace, "--max-connection-age-grace-seconds");
    requirePositive(retryAfter, "retry delay");
  }

  /** Handler threads when none are given: two per core, at least 4. */
  public static int defaultHandlerThreads() {
    return Math.max(4, 2 * Runtime.getRuntime().availableProcessors());
  }

  /**
   * Handler threads of an in-process server (the orchestrator's embedded services): four per core,
   * at least 8. Its callers are only this process's own (the job runner, the index ingester, the
   * rerank service calling the encoder), and a call one embedded service makes to another runs on
   * the other host's pool, so a nested call never waits for a thread of the pool it came from.
   * Calls beyond the thread count wait in the queue; none is refused, so a job never refuses
   * itself.
   */
  public static int inProcessHandlerThreads() {
    return Math.max(8, 4 * Runtime.getRuntime().availableProcessors());
  }

  /** Admitted calls when none are given: four per handler thread. */
  public static int defaultMaxConcurrentCalls(int handlerThreads) {
    return 4 * handlerThreads;
  }

  /** Streams per connection when none are given: twice the admitted calls, at least 100. */
  public static int defaultMaxConcurrentCallsPerConnection(int maxConcurrentCalls) {
    return Math.max(100, 2 * maxConcurrentCalls);
  }

  /** The defaults for this machine. */
  public static ServingLimits defaults() {
    return of(0, 0, 0);
  }

  /** Limits with the given sizes, each 0 meaning its default; timings are the defaults. */
  public static ServingLimits of(
      int handlerThreads, int maxConcurrentCalls, int maxConcurrentCallsPerConnection) {
    int threads = handlerThreads != 0 ? handlerThreads : defaultHandlerThreads();
    int calls =
        maxConcurrentCalls != 0
            ? maxConcurrentCalls
            : defaultMaxConcurrentCalls(Math.max(1, threads));
    int perConnection =
        maxConcurrentCallsPerConnection != 0
            ? maxConcurrentCallsPerConnection
            : defaultMaxConcurrentCallsPerConnection(Math.max(1, calls));
    return new ServingLimits(
        threads,
        calls,
        perConnection,
        DEFAULT_KEEPALIVE_TIME,
        DEFAULT_KEEPALIVE_TIMEOUT,
        DEFAULT_MAX_CONNECTION_IDLE,
        DEFAULT_MAX_CONNECTION_AGE,
        DEFAULT_MAX_CONNECTION_AGE_GRACE,
        DEFAULT_MAX_METADATA_BYTES,
        DEFAULT_RETRY_AFTER);
  }

  /** The same limits with connections aged out after {@code age} ({@link Duration#ZERO}: never). */
  public ServingLimits withMaxConnectionAge(Duration age, Duration grace) {
    return new ServingLimits(
        handlerThreads,
        maxConcurrentCalls,
        maxConcurrentCallsPerConnection,
        keepAliveTime,
        keepAliveTimeout,
        maxConnectionIdle,
        age,
        grace,
        maxMetadataBytes,
        retryAfter);
  }

  private static void requirePositive(Duration value, String name) {
    if (value == null || value.isNegative() || value.isZero()) {
      throw new IllegalArgumentException(name + " must be positive");
    }
  }
}
