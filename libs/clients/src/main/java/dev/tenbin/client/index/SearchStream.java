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
 * status without sending anything. Nothing is retried: after UNAVAILABLE, open a new stream and
 * send again the requests not answered (a stopping service ends the stream this way, with a {@code
 * RetryInfo}, after answering the request it was searching).
 *
 * <p>A caller that does not need each answer before its next query can pipeline: {@link #send}
 * sends a request without waiting, and {@link #next} returns the answer of the oldest request not
 * yet answered. Keeping a few requests in flight this way hides the round trip of each; the service
 * still searches them one after another, in order. {@link #search} is {@code send} then {@code
 * next}, with nothing else in flight.
 *
 * <p>Thread-safe: calls from several threads run one after another on the stream ({@link #search}
 * waits for the one before it and its answer); {@link #close} waits for a call in progress. A
 * thread interrupted while it waits for an answer cancels the stream.
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

  /** Answers returned. */
  private long answered;

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
                // The observer below only appends to a queue and never blocks, so it runs on the
                // thread that received the answer instead of waking a thread of the channel's
                // executor for each answer only to hand it on to the waiting caller.
                .withExecutor(Runnable::run)
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
   *
   * @throws IllegalStateException when requests sent by {@link #send} are still unanswered
   */
  public synchronized SearchResponse search(SearchRequest request) {
    if (ended != null) {
      throw new StatusRuntimeException(ended, endedTrailers);
    }
    if (sent != answered) {
      throw new IllegalStateException(
          (sent - answered) + " sent requests are unanswered: take their answers with next()");
    }
    send(request);
    return next();
  }

  /**
   * Sends {@code request} without waiting for an answer; its answer is the one {@link #next}
   * returns after those of the requests sent before it. Throws the status the stream ended with, if
   * it has.
   */
  public synchronized void send(SearchRequest request) {
    if (closed) {
      throw new IllegalStateException("the search stream is closed");
    }
    if (ended != null) {
      throw new StatusRuntimeException(ended, endedTrailers);
    }
    requests.onNext(SearchStreamRequest.newBuilder().setRequest(request).build());
    sent++;
  }

  /**
   * The answer of the oldest request sent and not yet answered, waiting for it; throws the
   * service's status when that request failed (which ends the stream), or the status the stream
   * ended with before.
   *
   * @throws IllegalStateException when every request sent has been answered
   */
  public synchronized SearchResponse next() {
    if (ended != null) {
      throw new StatusRuntimeException(ended, endedTrailers);
    }
    if (answered == sent) {
      throw new IllegalStateException("no request is waiting for its answer");
    }
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
      if (answer.getSequence() != answered + 1) {
        // The service answers in order; anything else is a broken contract, not a search result.
        requests.cancel("answer out of order", null);
        end(
            Status.INTERNAL.withDescription(
                "answer " + answer.getSequence() + " arrived for request " + (answered + 1)),
            null);
        throw new StatusRuntimeException(ended);
      }
      answered++;
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
