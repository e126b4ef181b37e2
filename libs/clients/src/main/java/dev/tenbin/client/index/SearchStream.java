package dev.tenbin.client.index;

import dev.tenbin.proto.index.v1.IndexServiceGrpc;
import dev.tenbin.proto.index.v1.SearchRequest;
import dev.tenbin.proto.index.v1.SearchResponse;
import dev.tenbin.proto.index.v1.SearchStreamRequest;
import dev.tenbin.proto.index.v1.SearchStreamResponse;
import dev.tenbin.rpc.StatusMapper;
import io.grpc.Channel;
import io.grpc.Deadline;
import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.ClientCallStreamObserver;
import io.grpc.stub.StreamObserver;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * One {@code SearchStream} of the index service, used one search at a time: {@link #search} sends a
 * request and blocks until its answer, which is what {@code Search} would answer; {@link #close}
 * ends the stream. Every request names the collection of the first (the service refuses another),
 * and the stream's deadline, set when it is opened, covers all its searches.
 *
 * <p>A stream ended with UNAVAILABLE (a service stopping for a rolling update hands it back so,
 * with a {@code RetryInfo}, after answering the request it was searching; a restarted or
 * unreachable one refuses it so) is resumed: the call is opened again, after the delay the {@code
 * RetryInfo} asks for or a backoff, and the requests not answered yet are sent again, in order, so
 * the caller sees every answer once and in order. Searches read, so a request the service searched
 * but whose answer was lost is simply searched again. At most {@link #MAX_RESUMES} resumptions in a
 * row, never past the deadline. Any other failure ends the stream: the search that failed throws
 * the service's status (its field named within {@code request}, e.g. {@code request.top_k}), and
 * every later search throws the same status without sending anything.
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

  /** Resumptions after UNAVAILABLE without an answer in between before the stream gives up. */
  static final int MAX_RESUMES = 8;

  /** The first wait before a resumption without a {@code RetryInfo}; it doubles each time. */
  static final Duration FIRST_BACKOFF = Duration.ofMillis(200);

  /** The longest wait before a resumption. */
  static final Duration MAX_BACKOFF = Duration.ofSeconds(30);

  /** Marks a call's successful end in its events. */
  private static final Object COMPLETED = new Object();

  private final Channel channel;
  private final Deadline deadline;

  /** Resumptions after UNAVAILABLE without an answer in between before the stream gives up. */
  private final int maxResumes;

  /** The call the stream runs on now. */
  private Call call;

  /** Requests sent and not answered yet, oldest first: sent again when the stream resumes. */
  private final ArrayDeque<SearchRequest> unanswered = new ArrayDeque<>();

  /** Resumptions since the last answer. */
  private int resumes;

  /** Why the stream ended, once a search or close saw it end; null while it runs. */
  private Status ended;

  private Metadata endedTrailers;
  private boolean closed;

  /** One gRPC call of the stream and what the service sent on it. */
  private final class Call {
    final ClientCallStreamObserver<SearchStreamRequest> requests;

    /** What the service sent, in order: answers, then the end (a failure or {@link #COMPLETED}). */
    final BlockingQueue<Object> events = new LinkedBlockingQueue<>();

    /** Answers taken from this call (the service numbers each call's answers from 1). */
    long answered;

    Call() {
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

    void send(SearchRequest request) {
      requests.onNext(SearchStreamRequest.newBuilder().setRequest(request).build());
    }
  }

  /** Opens the stream on {@code channel}; the call starts when the first request is sent. */
  SearchStream(Channel channel, Deadline deadline) {
    this(channel, deadline, MAX_RESUMES);
  }

  /**
   * Opens the stream on {@code channel}, resuming it at most {@code maxResumes} times in a row (0:
   * UNAVAILABLE ends it, for a caller that goes to another replica instead).
   */
  SearchStream(Channel channel, Deadline deadline, int maxResumes) {
    this.channel = channel;
    this.deadline = deadline;
    this.maxResumes = maxResumes;
    this.call = new Call();
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
    if (!unanswered.isEmpty()) {
      throw new IllegalStateException(
          unanswered.size() + " sent requests are unanswered: take their answers with next()");
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
    // On a call the service has just handed back the request goes nowhere: it is unanswered, and
    // sent again when the stream resumes.
    call.send(request);
    unanswered.addLast(request);
  }

  /**
   * The answer of the oldest request sent and not yet answered, waiting for it (and resuming the
   * stream after UNAVAILABLE); throws the service's status when that request failed (which ends the
   * stream), or the status the stream ended with before.
   *
   * @throws IllegalStateException when every request sent has been answered
   */
  public synchronized SearchResponse next() {
    if (ended != null) {
      throw new StatusRuntimeException(ended, endedTrailers);
    }
    if (unanswered.isEmpty()) {
      throw new IllegalStateException("no request is waiting for its answer");
    }
    while (true) {
      Object event;
      try {
        event = call.events.take();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        call.requests.cancel("interrupted while waiting for an answer", e);
        end(Status.CANCELLED.withDescription("interrupted while waiting for an answer"), null);
        throw new StatusRuntimeException(ended);
      }
      if (event instanceof SearchStreamResponse answer) {
        if (answer.getSequence() != call.answered + 1) {
          // The service answers in order; anything else is a broken contract, not a result.
          call.requests.cancel("answer out of order", null);
          end(
              Status.INTERNAL.withDescription(
                  "answer " + answer.getSequence() + " arrived for request " + (call.answered + 1)),
              null);
          throw new StatusRuntimeException(ended);
        }
        call.answered++;
        unanswered.removeFirst();
        resumes = 0;
        return answer.getResponse();
      }
      if (event instanceof Throwable failure && resumable(failure)) {
        resume(failure);
        continue;
      }
      endWith(event);
      throw new StatusRuntimeException(ended, endedTrailers);
    }
  }

  /** Whether the stream may be resumed after {@code failure}. */
  private boolean resumable(Throwable failure) {
    return Status.fromThrowable(failure).getCode() == Status.Code.UNAVAILABLE
        && resumes < maxResumes
        && !closed
        && !deadline.isExpired();
  }

  /**
   * Waits the delay {@code failure}'s {@code RetryInfo} asks for (or the backoff), opens the call
   * again and sends the unanswered requests again, in order.
   */
  private void resume(Throwable failure) {
    long backoff = FIRST_BACKOFF.toMillis() << Math.min(resumes, 10);
    long asked = StatusMapper.retryDelay(failure).map(Duration::toMillis).orElse(0L);
    long wait =
        Math.min(
            Math.min(Math.max(backoff, asked), MAX_BACKOFF.toMillis()),
            Math.max(0, deadline.timeRemaining(TimeUnit.MILLISECONDS)));
    resumes++;
    try {
      Thread.sleep(wait);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      end(Status.CANCELLED.withDescription("interrupted while resuming the stream"), null);
      throw new StatusRuntimeException(ended);
    }
    call = new Call();
    for (SearchRequest request : unanswered) {
      call.send(request);
    }
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
    call.requests.onCompleted();
    try {
      Object event = call.events.poll(CLOSE_WAIT.toMillis(), TimeUnit.MILLISECONDS);
      if (event == null) {
        call.requests.cancel("the search stream did not end within " + CLOSE_WAIT, null);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      call.requests.cancel("interrupted while closing", e);
    }
  }
}
