package dev.tenbin.client.index;

import dev.tenbin.proto.index.v1.CollectionSpec;
import dev.tenbin.proto.index.v1.CreateCollectionRequest;
import dev.tenbin.proto.index.v1.ExportDocumentsResponse;
import dev.tenbin.proto.index.v1.GetCollectionDigestResponse;
import dev.tenbin.proto.index.v1.IngestRequest;
import dev.tenbin.proto.index.v1.IngestResponse;
import io.grpc.Context;
import io.grpc.Deadline;
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
 * <p>A replica whose pod does not answer (UNAVAILABLE, DEADLINE_EXCEEDED) stays out and is tried
 * again by the next repair. Repair runs when its caller says ({@link #repairLostReplicas}), never
 * by itself, and only while no write (create, ingest) of the collection runs: a document written to
 * the peers after the copy is missing from the rebuilt replica, and one written while the copy runs
 * makes the digests differ, so that replica is refused and rebuilt by a later repair.
 */
public final class ReplicaRepair {
  private static final Logger LOG = LoggerFactory.getLogger(ReplicaRepair.class);

  /** How long copying one replica may take, export and ingest together, unless told otherwise. */
  public static final Duration DEFAULT_COPY_DEADLINE = Duration.ofHours(1);

  /** Documents per exported page, each page one ingest batch. */
  static final int PAGE_SIZE = 500;

  private final IndexClient index;
  private final Duration copyDeadline;

  /**
   * @param index the client of the index pods (routing each replica to its pod by placement)
   */
  public ReplicaRepair(IndexClient index) {
    this(index, DEFAULT_COPY_DEADLINE);
  }

  /**
   * @param index the client of the index pods
   * @param copyDeadline how long copying one replica may take
   */
  public ReplicaRepair(IndexClient index, Duration copyDeadline) {
    this.index = index;
    this.copyDeadline = copyDeadline;
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
   */
  public List<Outcome> repairLostReplicas(ShardedCollection collection) {
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

  /**
   * Rebuilds lost replica {@code replica} of shard {@code shard} from a live peer and readmits it
   * when its digest equals the peer's (see the class comment); logs one line with the outcome.
   *
   * @throws IllegalArgumentException when the replica is not lost
   */
  public Outcome repair(ShardedCollection collection, int shard, int replica) {
    if (!collection.isLost(shard, replica)) {
      throw new IllegalArgumentException(
          "replica " + replica + " of shard " + shard + " of " + collection.name() + " is live");
    }
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
   * page, each acknowledged before the next is sent; returns the documents sent. Both calls run in
   * one cancellable context, cancelled when the copy ends, so neither outlives it.
   */
  private long copy(String peer, String target) {
    Deadline deadline = Deadline.after(copyDeadline.toMillis(), TimeUnit.MILLISECONDS);
    Context.CancellableContext context = Context.current().withCancellation();
    try {
      return context.call(() -> copyWithin(peer, target, deadline));
    } catch (RuntimeException e) {
      throw e;
    } catch (Exception e) {
      throw new IllegalStateException(e);
    } finally {
      context.cancel(null);
    }
  }

  private long copyWithin(String peer, String target, Deadline deadline) {
    // Acknowledgements (IngestResponse), then the stream's end: a Throwable, or `end`.
    LinkedBlockingQueue<Object> answers = new LinkedBlockingQueue<>();
    Object end = new Object();
    ClientCallStreamObserver<IngestRequest> batches =
        index.ingest(
            deadline,
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
    long sent = 0;
    try {
      Iterator<ExportDocumentsResponse> pages = index.exportDocuments(peer, PAGE_SIZE, deadline);
      while (pages.hasNext()) {
        ExportDocumentsResponse page = pages.next();
        if (page.getDocumentsCount() == 0) {
          continue;
        }
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
        sent += page.getDocumentsCount();
      }
      batches.onCompleted();
      if (take(answers) != end) {
        throw Status.INTERNAL
            .withDescription("the ingest stream of " + target + " answered past its last batch")
            .asRuntimeException();
      }
      return sent;
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
