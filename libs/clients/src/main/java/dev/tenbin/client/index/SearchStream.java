package dev.tenbin.client.index;

import dev.tenbin.proto.index.v1.IndexServiceGrpc;
import dev.tenbin.proto.index.v1.SearchRequest;
import dev.tenbin.proto.index.v1.SearchResponse;
import dev.tenbin.proto.index.v1.SearchStreamRequest;
import dev.tenbin.proto.index.v1.SearchStreamResponse;
import io.grpc.Channel;
import io.grpc.Deadline;
import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.ClientCallStreamObserver;
import io.grpc.stub.StreamObserver;
import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * One {@code SearchStream} call of the index service, used one search at a time: {@link #search}
 * sends a request and blocks until its answer, which is what {@code Search} would answer; {@link
 * #close} ends the stream. Every request names the collection of the first (the service refuses
 * another), and the stream's deadline, set when it is opened, covers all its searches.
 *
 * <p>A failure ends the stream: the search that failed throws the service's status (its field named
 * within {@code request}, e.g. {@code request.top_k}), and every later search throws the same
 * status without sending anything. Nothing is retried: after UNAVAILABLE, open a new stream.
 *
 * <p>Thread-safe: searches from several threads run one after another on the stream (each waits for
 * the one before it and its answer); {@link #close} waits for a search in progress. A thread
 * interrupted while it waits for an answer cancels the stream.
 */
public final class SearchStream implements AutoCloseable {
  /** How long {@link #close} waits for the service to end the stream before cancelling it. */
  static final Duration CLOSE_WAIT = Duration.ofSeconds(10);

  /** Marks the stream's successful end in {@link #events}. */
  private static final Object COMPLETED = new Object();

  private final ClientCallStreamObserver<SearchStreamRequest> requests;

  /** What the service sent, in order: answers, then the end (a failure or {@link #COMPLETED}). */
  private final BlockingQueue<Object> events = new LinkedBlockingQueue<>();

  /** Requests sent. */
  private long sent;

  /** Why the stream ended, once a search or close saw it end; null while it runs. */
  private Status ended;

  private Metadata endedTrailers;
  private boolean closed;

  /** Opens the stream on {@code channel}; the call starts when the first request is sent. */
  SearchStream(Channel channel, Deadline deadline) {
    this.requests =
        (ClientCallStreamObserver<SearchStreamRequest>)
            IndexServiceGrpc.newStub(channel)
                .withDeadline(deadline)
                .searchStream(
                    new StreamObserver<>() {
                      @Override
                      public void onNext(SearchStreamResponse answer) {
                        events.add(answer);
                      }

                      @Override
                      public void onError(Throwable t) {
                        events.add(t);
                      }

                      @Override
                      public void onCompleted() {
                        events.add(COMPLETED);
                      }
                    });
  }

  /**
   * What {@code Search} answers for {@code request}, over this stream; throws the service's status
   * when the request fails (which ends the stream), or the status the stream ended with before.
   */
  public synchronized SearchResponse search(SearchRequest request) {
    if (closed) {
      throw new IllegalStateException("the search stream is closed");
    }
    if (ended != null) {
      throw new StatusRuntimeException(ended, endedTrailers);
    }
    requests.onNext(SearchStreamRequest.newBuilder().setRequest(request).build());
    sent++;
    Object event;
    try {
      event = events.take();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      requests.cancel("interrupted while waiting for an answer", e);
      end(Status.CANCELLED.withDescription("interrupted while waiting for an answer"), null);
      throw new StatusRuntimeException(ended);
    }
    if (event instanceof SearchStreamResponse answer) {
      if (answer.getSequence() != sent) {
        // The service answers in order; anything else is a broken contract, not a search result.
        requests.cancel("answer out of order", null);
        end(
            Status.INTERNAL.withDescription(
                "answer " + answer.getSequence() + " arrived for request " + sent),
            null);
        throw new StatusRuntimeException(ended);
      }
      return answer.getResponse();
    }
    endWith(event);
    throw new StatusRuntimeException(ended, endedTrailers);
  }

  /** Records how the stream ended from its last event (a failure, or a completion). */
  private void endWith(Object event) {
    if (event instanceof Throwable failure) {
      end(Status.fromThrowable(failure), Status.trailersFromThrowable(failure));
    } else {
      end(Status.INTERNAL.withDescription("the service ended the stream before answering"), null);
    }
  }

  private void end(Status status, Metadata trailers) {
    ended = status;
    endedTrailers = trailers;
  }

  /**
   * Half-closes the stream and waits (at most {@link #CLOSE_WAIT}) for the service to end it; a
   * stream that does not end by then is cancelled. Closing twice does nothing.
   */
  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    if (ended != null) {
      return;
    }
    requests.onCompleted();
    try {
      Object event = events.poll(CLOSE_WAIT.toMillis(), TimeUnit.MILLISECONDS);
      if (event == null) {
        requests.cancel("the search stream did not end within " + CLOSE_WAIT, null);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      requests.cancel("interrupted while closing", e);
    }
  }
}
