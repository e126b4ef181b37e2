package dev.tenbin.index.grpc;

import dev.tenbin.core.Cancellation;
import dev.tenbin.core.InvalidInputException;
import dev.tenbin.core.TenbinException;
import dev.tenbin.index.collection.Excerpt;
import dev.tenbin.proto.index.v1.SearchRequest;
import dev.tenbin.proto.index.v1.SearchResponse;
import dev.tenbin.proto.index.v1.SearchStreamRequest;
import dev.tenbin.proto.index.v1.SearchStreamResponse;
import dev.tenbin.rpc.PacedRequests;
import dev.tenbin.rpc.StatusMapper;
import io.grpc.Context;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;

/**
 * One SearchStream call: each request carries one {@code SearchRequest}, answered by {@link
 * Searcher} (the one path {@code Search} takes) with one response, in order.
 *
 * <p>Flow control is manual, as in {@link IngestStream}: the next request is asked for only once
 * the answer to the last one has been handed to gRPC and the client can take more ({@code
 * isReady}), with one request read ahead, so the service holds at most two requests of a stream at
 * a time, and a client that does not read its answers stops the stream instead of making the
 * service search ahead and buffer the answers.
 *
 * <p>A failing request ends the call with the status the one {@link StatusMapper} gives it (what
 * {@code Search} returns for that request), its field named within {@code request}; the answers to
 * the requests before it have been sent by then. gRPC runs the callbacks of one call one at a time,
 * so the state below needs no lock.
 */
final class SearchStream implements StreamObserver<SearchStreamRequest> {
  /** Answers one search request as {@code Search} does. */
  @FunctionalInterface
  interface Searcher {
    SearchResponse answer(SearchRequest request, Cancellation cancellation);
  }

  private final Searcher searcher;
  private final ServerCallStreamObserver<SearchStreamResponse> responses;
  private String collection;
  private long sequence;
  private boolean finished;
  private final PacedRequests requests;

  /** Call from the service method: installs manual flow control before the method returns. */
  SearchStream(Searcher searcher, StreamObserver<SearchStreamResponse> responses) {
    this.searcher = searcher;
    this.responses = (ServerCallStreamObserver<SearchStreamResponse>) responses;
    // Two requests asked for at first: the second waits, read, while the first is searched, and
    // runs
    // on the same thread as soon as the first is answered instead of waiting for a thread to be
    // woken for it (a client that pipelines its queries then finds the service searching back to
    // back). So at most two requests of a stream are in the service, one searched and one waiting.
    this.requests = new PacedRequests(this.responses, 2, () -> finished);
    // The client went away (cancelled, or the deadline passed): nothing more is read or sent.
    this.responses.setOnCancelHandler(() -> finished = true);
  }

  @Override
  public void onNext(SearchStreamRequest message) {
    if (finished) {
      return;
    }
    try {
      sequence++;
      if (!message.hasRequest()) {
        throw new InvalidInputException(
            "request", "every message of a search stream carries one search request");
      }
      SearchResponse answer;
      try {
        answer =
            searcher.answer(sameCollection(message.getRequest()), Context.current()::isCancelled);
      } catch (TenbinException e) {
        throw e.within("request");
      }
      responses.onNext(
          SearchStreamResponse.newBuilder().setResponse(answer).setSequence(sequence).build());
      requests.answered();
    } catch (RuntimeException failure) {
      finished = true;
      responses.onError(StatusMapper.toStatusException(failure));
    }
  }

  /** {@code request}, when it names the collection of the stream's first request. */
  private SearchRequest sameCollection(SearchRequest request) {
    if (collection == null) {
      collection = request.getCollection();
    } else if (!collection.equals(request.getCollection())) {
      throw new InvalidInputException(
          "collection",
          "one search stream searches one collection: "
              + Excerpt.of(collection)
              + ", not "
              + Excerpt.of(request.getCollection()));
    }
    return request;
  }

  @Override
  public void onError(Throwable t) {
    // The client went away; nothing was written, nothing more is sent.
    finished = true;
  }

  @Override
  public void onCompleted() {
    if (finished) {
      return;
    }
    finished = true;
    responses.onCompleted();
  }
}
