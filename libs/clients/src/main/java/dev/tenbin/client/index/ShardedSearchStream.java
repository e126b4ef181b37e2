package dev.tenbin.client.index;

import dev.tenbin.proto.index.v1.SearchRequest;
import dev.tenbin.proto.index.v1.SearchResponse;
import dev.tenbin.rpc.StatusMapper;
import io.grpc.Deadline;
import io.grpc.StatusRuntimeException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/**
 * The {@link SearchStream} of a {@link ShardedCollection}: one search stream per shard (on one live
 * replica of it), each request of the logical collection scattered to all of them and their answers
 * merged exactly as {@link ShardedCollection#search} merges ({@link ShardedCollection#plan}, {@link
 * ShardedCollection#finishSearch}), so every answer is the one {@code search} gives: the one
 * collection's top {@code k}, score for score, tie for tie. With one shard of one replica it is the
 * index's own stream, request for request.
 *
 * <p>It keeps the stream's contract. {@link #search} sends a request and waits for its answer;
 * {@link #send} pipelines and {@link #next} takes the answer of the oldest request not yet
 * answered, so answers come in the order the requests were sent. Every shard's stream is the
 * index's {@code SearchStream}, so the service's flow control holds on each (one search and one
 * waiting request per stream; a caller that stops reading stops the streams), and nothing is queued
 * here beyond the requests the caller sent and has not taken the answers of. Every request names
 * the logical collection (else INVALID_ARGUMENT naming {@code request.collection}); a request a
 * shard refuses ends the stream with the shard's status (its field named within {@code request}),
 * after the answers to every earlier request; every later call throws the same status. The
 * deadline, set when the stream is opened, covers every shard's stream.
 *
 * <p>BM25 statistics and int8 ranges are asked of the shards (unary calls) when a request is sent,
 * and the float re-score of a quantized two-stage search is one {@link ShardedCollection#rescore}
 * when its answer is taken. With one replica a shard's stream is resumed after UNAVAILABLE as
 * {@link SearchStream} resumes. With more, a shard's stream that fails as a lost replica ({@link
 * ShardedCollection#losesReplica}) leaves that replica out ({@link ShardedCollection#lose}) and the
 * shard's unanswered requests are sent again, in order, on a stream to another live replica;
 * searches only read, so a request searched twice answers the same. Only when a shard has no
 * replica left does the stream end, with UNAVAILABLE naming the shard.
 *
 * <p>Thread-safe: calls run one after another, as on {@link SearchStream}.
 */
public final class ShardedSearchStream implements AutoCloseable {
  private final ShardedCollection collection;
  private final IndexClient index;
  private final Deadline deadline;

  /** Per shard: the replica its stream runs on. */
  private final int[] replicas;

  /** Per shard: its stream, null until the first request or after its replica was lost. */
  private final SearchStream[] streams;

  /** Per shard: the requests sent on its current stream and not answered yet, oldest first. */
  private final List<ArrayDeque<SearchRequest>> unansweredByShard;

  /** The plans of the requests sent and not answered yet, oldest first. */
  private final ArrayDeque<ShardedCollection.SearchPlan> unanswered = new ArrayDeque<>();

  /** Why the stream ended, once a call saw it end; null while it runs. */
  private StatusRuntimeException ended;

  private boolean closed;

  ShardedSearchStream(ShardedCollection collection, IndexClient index, Deadline deadline) {
    this.collection = collection;
    this.index = index;
    this.deadline = deadline;
    int shards = collection.shards();
    this.replicas = new int[shards];
    this.streams = new SearchStream[shards];
    this.unansweredByShard = new ArrayList<>(shards);
    for (int s = 0; s < shards; s++) {
      unansweredByShard.add(new ArrayDeque<>());
      replicas[s] = -1;
    }
  }

  /**
   * What {@link ShardedCollection#search} answers for {@code request}, over this stream; throws the
   * status a shard refused it with (which ends the stream), or the status the stream ended with.
   *
   * @throws IllegalStateException when requests sent by {@link #send} are still unanswered
   */
  public synchronized SearchResponse search(SearchRequest request) {
    if (ended != null) {
      throw ended;
    }
    if (!unanswered.isEmpty()) {
      throw new IllegalStateException(
          unanswered.size() + " sent requests are unanswered: take their answers with next()");
    }
    send(request);
    return next();
  }

  /**
   * Sends {@code request} (naming the logical collection) to every shard without waiting for the
   * answers; its answer is the one {@link #next} returns after those of the requests sent before
   * it. Throws the status the stream ended with, if it has.
   */
  public synchronized void send(SearchRequest request) {
    if (closed) {
      throw new IllegalStateException("the search stream is closed");
    }
    if (ended != null) {
      throw ended;
    }
    if (!request.getCollection().equals(collection.name())) {
      throw end(
          StatusMapper.withField(
              com.google.rpc.Code.INVALID_ARGUMENT,
              "every request of a search stream names the collection "
                  + collection.name()
                  + ", not "
                  + request.getCollection(),
              "request.collection"));
    }
    ShardedCollection.SearchPlan plan;
    try {
      plan = collection.plan(request);
    } catch (StatusRuntimeException failure) {
      throw end(failure);
    }
    for (int s = 0; s < streams.length; s++) {
      unansweredByShard.get(s).addLast(plan.perShard());
      sendOn(s, plan.perShard());
    }
    unanswered.addLast(plan);
  }

  /**
   * The answer of the oldest request sent and not yet answered: its shards' answers merged. Throws
   * the status a shard refused it with (which ends the stream), or the status the stream ended
   * with.
   *
   * @throws IllegalStateException when every request sent has been answered
   */
  public synchronized SearchResponse next() {
    if (ended != null) {
      throw ended;
    }
    if (unanswered.isEmpty()) {
      throw new IllegalStateException("no request is waiting for its answer");
    }
    ShardedCollection.SearchPlan plan = unanswered.removeFirst();
    try {
      List<SearchResponse> parts = new ArrayList<>(streams.length);
      for (int s = 0; s < streams.length; s++) {
        parts.add(nextOf(s));
      }
      return collection.finishSearch(plan, parts);
    } catch (StatusRuntimeException failure) {
      throw end(failure);
    }
  }

  /** Sends {@code request} (naming the logical collection) on shard {@code shard}'s stream. */
  private void sendOn(int shard, SearchRequest request) {
    if (streams[shard] == null) {
      open(shard);
      return; // open() sent every unanswered request of the shard, this one included.
    }
    streams[shard].send(request.toBuilder().setCollection(copy(shard)).build());
  }

  /**
   * The answer of shard {@code shard}'s oldest unanswered request; a replica lost on the way is
   * left out and the shard's unanswered requests sent again on another replica's stream.
   */
  private SearchResponse nextOf(int shard) {
    while (true) {
      try {
        if (streams[shard] == null) {
          open(shard);
        }
        SearchResponse answer = streams[shard].next();
        unansweredByShard.get(shard).removeFirst();
        return answer;
      } catch (StatusRuntimeException failure) {
        if (!collection.losesReplica(failure)) {
          throw failure;
        }
        SearchStream lost = streams[shard];
        streams[shard] = null;
        lost.close();
        // Throws UNAVAILABLE naming the shard when it has no replica left.
        collection.lose(shard, replicas[shard], failure);
      }
    }
  }

  /**
   * Opens shard {@code shard}'s stream on its next live replica and sends it the shard's unanswered
   * requests, in order.
   */
  private void open(int shard) {
    replicas[shard] = collection.nextLiveReplica(shard);
    streams[shard] =
        collection.replicas() == 1
            ? index.searchStream(deadline)
            // Another replica answers at once instead of the lost one being waited for.
            : index.searchStream(deadline, 0);
    for (SearchRequest request : unansweredByShard.get(shard)) {
      streams[shard].send(request.toBuilder().setCollection(copy(shard)).build());
    }
  }

  private String copy(int shard) {
    return collection.replicaName(shard, replicas[shard]);
  }

  /** Ends the stream with {@code failure}: every shard's stream is closed; returns the failure. */
  private StatusRuntimeException end(StatusRuntimeException failure) {
    ended = failure;
    closeStreams();
    return failure;
  }

  private void closeStreams() {
    for (int s = 0; s < streams.length; s++) {
      if (streams[s] != null) {
        streams[s].close();
        streams[s] = null;
      }
    }
  }

  /**
   * Half-closes every shard's stream and waits for each to end (as {@link SearchStream#close}).
   * Closing twice does nothing.
   */
  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    closeStreams();
  }
}
