package dev.tenbin.client.index;

import dev.tenbin.proto.index.v1.CollectionSpec;
import dev.tenbin.proto.index.v1.CreateCollectionRequest;
import dev.tenbin.proto.index.v1.ExportDocumentsResponse;
import dev.tenbin.proto.index.v1.GetCollectionDigestResponse;
import dev.tenbin.proto.index.v1.IngestRequest;
import dev.tenbin.proto.index.v1.IngestResponse;
import io.grpc.Context;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.ClientCallStreamObserver;
import io.grpc.stub.ClientResponseObserver;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Rebuilds the lost replicas of a {@link ShardedCollection} from their live peers, and has one
 * serve again only once its content digest equals its peer's.
 *
 * <p>For each lost replica of a shard that still has a live one (the peer, the first live replica
 * in replica order), {@link #repair} does, against the pod placement names for the replica (the
 * lost pod come back, or the replacement placement maps the replica to):
 *
 * <ol>
 *   <li>drops whatever collection the pod holds under the replica's name (a partial or stale copy);
 *   <li>creates it with the peer's spec ({@code DescribeCollection}), renamed;
 *   <li>ingests the peer's documents as {@code ExportDocuments} hands them out, in id order, one
 *       batch per page, each acknowledged before the next is sent;
 *   <li>compares the replica's {@code GetCollectionDigest} with the peer's: equal digests and
 *       document counts {@link ShardedCollection#readmit readmit} the replica (logged with its
 *       document count and digest); anything else leaves it out, logged with why.
 * </ol>
 *
 * <p>No deadline covers a copy, which takes as long as the peer's size asks; it fails only when it
 * makes no progress (no page exported by the peer, no batch acknowledged by the replica) for the
 * idle timeout ({@link #DEFAULT_IDLE_TIMEOUT} unless told otherwise), a peer or a pod that stopped
 * answering in the middle of its stream. A replica whose pod does not answer (UNAVAILABLE,
 * DEADLINE_EXCEEDED, a stalled copy) stays out and is tried again by the next repair.
 *
 * <p>Repair runs when its caller says ({@link #repairLostReplicas}), never by itself, and never
 * while the collection is being written: it holds {@link ShardedCollection#repairing}, refused
 * while a create or ingest of the collection has not committed ({@link ShardedCollection#writing}),
 * and writes started meanwhile wait for it. A document written to the peers after the copy would be
 * missing from the rebuilt replica, and its digest compared with a peer that is still moving.
 */
public final class ReplicaRepair {
  private static final Logger LOG = LoggerFactory.getLogger(ReplicaRepair.class);

  /**
   * How long a copy may go without progress (a page exported by the peer, a batch acknowledged by
   * the replica) unless told otherwise: the idle timeout of an evaluation's ingest.
   */
  public static final Duration DEFAULT_IDLE_TIMEOUT = Duration.ofMinutes(10);

  /** Documents per exported page, each page one ingest batch. */
  static final int PAGE_SIZE = 500;

  private final IndexClient index;
  private final Duration idleTimeout;

  /**
   * @param index the client of the index pods (routing each replica to its pod by placement)
   */
  public ReplicaRepair(IndexClient index) {
    this(index, DEFAULT_IDLE_TIMEOUT);
  }

  /**
   * @param index the client of the index pods
   * @param idleTimeout how long the copy of one replica may wait for its next page from the peer,
   *     or for the replica's acknowledgement of the last one, before it fails; a copy that keeps
   *     making progress runs as long as it needs
   */
  public ReplicaRepair(IndexClient index, Duration idleTimeout) {
    if (idleTimeout.isNegative() || idleTimeout.isZero()) {
      throw new IllegalArgumentException("the idle timeout must be positive, got " + idleTimeout);
    }
    this.index = index;
    this.idleTimeout = idleTimeout;
  }

  /** What a repair of one replica came to. */
  public enum Result {
    /** Rebuilt, its digest equal to its peer's: serving again. */
    READMITTED,
    /** Rebuilt, but its digest or document count differs from its peer's: left out. */
    REFUSED,
    /** Its pod did not answer (UNAVAILABLE, DEADLINE_EXCEEDED): left out, to be tried again. */
    UNREACHABLE,
    /** No live replica of its shard to copy from: left out. */
    NO_PEER,
    /** Another failure, of the replica's pod or its peer's: left out. */
    FAILED
  }

  /**
   * The outcome of one replica's repair.
   *
   * @param shard the shard
   * @param replica the replica
   * @param collection the replica's index collection
   * @param peer the index collection copied from; empty without one
   * @param result what came of it
   * @param documents the documents the rebuilt replica holds (0 when it was not rebuilt)
   * @param digest the rebuilt replica's content digest; empty when it was not rebuilt
   * @param reason why it was not readmitted; empty when it was
   */
  public record Outcome(
      int shard,
      int replica,
      String collection,
      String peer,
      Result result,
      long documents,
      String digest,
      String reason) {
    public boolean readmitted() {
      return result == Result.READMITTED;
    }
  }

  /**
   * Repairs every lost replica of {@code collection} ({@link #repair}), shard by shard, in replica
   * order; the outcomes in that order (none when no replica is lost).
   *
   * @throws IllegalStateException while the collection is being written (a create or an ingest has
   *     not committed): see {@link ShardedCollection#repairing}
   */
  public List<Outcome> repairLostReplicas(ShardedCollection collection) {
    try (ShardedCollection.Hold repairing = collection.repairing()) {
      List<Outcome> outcomes = new ArrayList<>();
      for (int s = 0; s < collection.shards(); s++) {
        for (int r = 0; r < collection.replicas(); r++) {
          if (collection.isLost(s, r)) {
            outcomes.add(repair(collection, s, r));
          }
        }
      }
      return outcomes;
    }
  }

  /**
   * Rebuilds lost replica {@code replica} of shard {@code shard} from a live peer and readmits it
   * when its digest equals the peer's (see the class comment); logs one line with the outcome.
   *
   * @throws IllegalArgumentException when the replica is not lost
   * @throws IllegalStateException while the collection is being written (a create or an ingest has
   *     not committed): see {@link ShardedCollection#repairing}
   */
  public Outcome repair(ShardedCollection collection, int shard, int replica) {
    if (!collection.isLost(shard, replica)) {
      throw new IllegalArgumentException(
          "replica " + replica + " of shard " + shard + " of " + collection.name() + " is live");
    }
    try (ShardedCollection.Hold repairing = collection.repairing()) {
      return rebuild(collection, shard, replica);
    }
  }

  /** {@link #repair}, under the collection's repair hold. */
  private Outcome rebuild(ShardedCollection collection, int shard, int replica) {
    String target = collection.replicaName(shard, replica);
    List<Integer> live = collection.liveReplicas(shard);
    if (live.isEmpty()) {
      return logged(
          new Outcome(
              shard,
              replica,
              target,
              "",
              Result.NO_PEER,
              0,
              "",
              "shard " + shard + " has no live replica to copy from"));
    }
    String peer = collection.replicaName(shard, live.getFirst());
    Step step = new Step();
    try {
      step.at = "describing the peer " + peer;
      CollectionSpec spec = index.describeCollection(peer).getSpec();
      step.at = "dropping what " + target + " held";
      dropIfPresent(target);
      step.at = "creating " + target;
      index.createCollection(
          CreateCollectionRequest.newBuilder().setSpec(spec.toBuilder().setName(target)).build());
      step.at = "copying " + peer + " into " + target;
      long copied = copy(peer, target);
      step.at = "computing the digest of " + target;
      GetCollectionDigestResponse rebuilt = index.collectionDigest(target);
      step.at = "computing the digest of the peer " + peer;
      GetCollectionDigestResponse source = index.collectionDigest(peer);
      if (!rebuilt.getDigest().equals(source.getDigest())
          || rebuilt.getDocumentCount() != source.getDocumentCount()) {
        return logged(
            new Outcome(
                shard,
                replica,
                target,
                peer,
                Result.REFUSED,
                rebuilt.getDocumentCount(),
                rebuilt.getDigest(),
                "its content differs from its peer's after copying "
                    + copied
                    + " documents: "
                    + rebuilt.getDocumentCount()
                    + " documents, digest "
                    + rebuilt.getDigest()
                    + ", against "
                    + source.getDocumentCount()
                    + " documents, digest "
                    + source.getDigest()));
      }
      collection.readmit(shard, replica);
      return logged(
          new Outcome(
              shard,
              replica,
              target,
              peer,
              Result.READMITTED,
              rebuilt.getDocumentCount(),
              rebuilt.getDigest(),
              ""));
    } catch (StatusRuntimeException failure) {
      Status.Code code = failure.getStatus().getCode();
      Result result =
          code == Status.Code.UNAVAILABLE || code == Status.Code.DEADLINE_EXCEEDED
              ? Result.UNREACHABLE
              : Result.FAILED;
      return logged(
          new Outcome(
              shard,
              replica,
              target,
              peer,
              result,
              0,
              "",
              step.at + " failed: " + describe(failure)));
    }
  }

  /** Where a repair is, for its failure's reason. */
  private static final class Step {
    String at = "";
  }

  /**
   * Drops {@code collection} when its pod holds it. The look-up is a retried read, so a pod whose
   * connection is coming back up gets its attempts before the repair gives up on it.
   */
  private void dropIfPresent(String collection) {
    try {
      index.describeCollection(collection);
    } catch (StatusRuntimeException failure) {
      if (failure.getStatus().getCode() == Status.Code.NOT_FOUND) {
        return;
      }
      throw failure;
    }
    index.dropCollection(collection);
  }

  /**
   * Ingests {@code peer}'s exported pages into {@code target} on one ingest stream, one batch per
   * page, each acknowledged before the next is sent; returns the documents sent. No deadline covers
   * the whole copy, which takes as long as the collection's size asks; instead a watchdog fails it
   * once it has made no progress (no page exported, no batch acknowledged) for the idle timeout, a
   * peer or a replica that stopped answering in the middle of its stream. Both calls run in one
   * cancellable context, cancelled by the watchdog or when the copy ends, so neither outlives it.
   *
   * @throws StatusRuntimeException DEADLINE_EXCEEDED saying what the copy waited for when it went
   *     idle; the failure of either call otherwise
   */
  private long copy(String peer, String target) {
    Context.CancellableContext context = Context.current().withCancellation();
    Progress progress = new Progress(peer, target);
    Thread watchdog =
        Thread.ofVirtual()
            .name("replica-repair-watchdog-" + target)
            .start(() -> watch(context, progress));
    try {
      return context.call(() -> copyWithin(peer, target, progress));
    } catch (StatusRuntimeException failure) {
      // A call the watchdog cancelled fails as CANCELLED: the stall is what happened.
      StatusRuntimeException stalled = progress.stalled;
      throw stalled != null ? stalled : failure;
    } catch (RuntimeException e) {
      throw e;
    } catch (Exception e) {
      throw new IllegalStateException(e);
    } finally {
      context.cancel(null);
      watchdog.interrupt();
    }
  }

  /**
   * Cancels {@code context} once {@code progress} has not moved for the idle timeout, recording the
   * stall; returns when the context is cancelled (the copy ended) or the thread interrupted.
   */
  private void watch(Context.CancellableContext context, Progress progress) {
    long idle = idleTimeout.toNanos();
    while (!context.isCancelled()) {
      long left = progress.lastNanos + idle - System.nanoTime();
      if (left <= 0) {
        progress.stalled =
            Status.DEADLINE_EXCEEDED
                .withDescription(
                    "the copy of "
                        + progress.peer
                        + " into "
                        + progress.target
                        + " made no progress for "
                        + describe(idleTimeout)
                        + " (the idle timeout): it waited for "
                        + progress.waitingFor
                        + ", having copied "
                        + progress.documents.get()
                        + " documents")
                .asRuntimeException();
        context.cancel(progress.stalled);
        return;
      }
      try {
        TimeUnit.NANOSECONDS.sleep(left);
      } catch (InterruptedException e) {
        return;
      }
    }
  }

  /** How far a copy got, what it waits for, and when it last made progress: for the watchdog. */
  private static final class Progress {
    final String peer;
    final String target;
    volatile long lastNanos = System.nanoTime();
    volatile String waitingFor = "";
    final AtomicLong pages = new AtomicLong();
    final AtomicLong documents = new AtomicLong();

    /** Set by the watchdog when the copy went idle. */
    volatile StatusRuntimeException stalled;

    Progress(String peer, String target) {
      this.peer = peer;
      this.target = target;
    }

    /** The copy moved on and now waits for {@code next}: its idle time starts again. */
    void movedOn(String next) {
      waitingFor = next;
      lastNanos = System.nanoTime();
    }
  }

  private long copyWithin(String peer, String target, Progress progress) {
    // Acknowledgements (IngestResponse), then the stream's end: a Throwable, or `end`.
    LinkedBlockingQueue<Object> answers = new LinkedBlockingQueue<>();
    Object end = new Object();
    ClientCallStreamObserver<IngestRequest> batches =
        index.ingest(
            null,
            new ClientResponseObserver<IngestRequest, IngestResponse>() {
              @Override
              public void beforeStart(ClientCallStreamObserver<IngestRequest> requests) {}

              @Override
              public void onNext(IngestResponse acknowledged) {
                answers.add(acknowledged);
              }

              @Override
              public void onError(Throwable failure) {
                answers.add(failure);
              }

              @Override
              public void onCompleted() {
                answers.add(end);
              }
            });
    try {
      progress.movedOn("the first page of the export of " + peer);
      Iterator<ExportDocumentsResponse> pages = index.exportDocuments(peer, PAGE_SIZE, null);
      while (pages.hasNext()) {
        ExportDocumentsResponse page = pages.next();
        if (page.getDocumentsCount() == 0) {
          continue;
        }
        progress.movedOn(
            "the acknowledgement by " + target + " of page " + (progress.pages.get() + 1));
        batches.onNext(
            IngestRequest.newBuilder()
                .setCollection(target)
                .addAllDocuments(page.getDocumentsList())
                .build());
        if (!(take(answers) instanceof IngestResponse)) {
          throw Status.INTERNAL
              .withDescription("the ingest stream of " + target + " ended before its last batch")
              .asRuntimeException();
        }
        progress.documents.addAndGet(page.getDocumentsCount());
        progress.movedOn(
            "page " + (progress.pages.incrementAndGet() + 1) + " of the export of " + peer);
      }
      progress.movedOn("the end of the ingest stream of " + target);
      batches.onCompleted();
      if (take(answers) != end) {
        throw Status.INTERNAL
            .withDescription("the ingest stream of " + target + " answered past its last batch")
            .asRuntimeException();
      }
      return progress.documents.get();
    } catch (RuntimeException failure) {
      batches.cancel("the copy of " + peer + " stopped", failure);
      throw failure;
    }
  }

  /** The next answer of the ingest stream; a failure is thrown as its status. */
  private static Object take(LinkedBlockingQueue<Object> answers) {
    Object answer;
    try {
      answer = answers.take();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw Status.CANCELLED
          .withDescription("interrupted while copying a replica")
          .withCause(e)
          .asRuntimeException();
    }
    if (answer instanceof Throwable failure) {
      throw Status.fromThrowable(failure).asRuntimeException();
    }
    return answer;
  }

  /** A duration as people read it: whole seconds, else milliseconds. */
  private static String describe(Duration duration) {
    return duration.toMillis() % 1000 == 0
        ? duration.toSeconds() + " s"
        : duration.toMillis() + " ms";
  }

  private static String describe(StatusRuntimeException failure) {
    Status status = failure.getStatus();
    return status.getDescription() == null
        ? status.getCode().toString()
        : status.getCode() + " " + status.getDescription();
  }

  /** Logs one line for {@code outcome}. */
  private static Outcome logged(Outcome outcome) {
    if (outcome.readmitted()) {
      LOG.info(
          "rebuilt replica {} of shard {} ({}) from {}: {} documents, digest {}; serving again",
          outcome.replica(),
          outcome.shard(),
          outcome.collection(),
          outcome.peer(),
          outcome.documents(),
          outcome.digest());
    } else {
      LOG.warn(
          "replica {} of shard {} ({}) stays out ({}): {}",
          outcome.replica(),
          outcome.shard(),
          outcome.collection(),
          outcome.result(),
          outcome.reason());
    }
    return outcome;
  }
}
