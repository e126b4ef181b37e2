package dev.tenbin.client.index;

import dev.tenbin.proto.common.v1.Ranking;
import dev.tenbin.proto.index.v1.IndexServiceGrpc;
import dev.tenbin.proto.index.v1.SearchRequest;
import dev.tenbin.proto.index.v1.SearchResponse;
import dev.tenbin.proto.index.v1.SearchStreamRequest;
import dev.tenbin.proto.index.v1.SearchStreamResponse;
import dev.tenbin.rpc.StatusMapper;
import io.grpc.Status;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.function.BiFunction;

/**
 * A fake index service whose SearchStream does, for each request, what a script says given the
 * call's number and the request's position in it (both from 0); it records the query ids each call
 * received.
 */
final class ScriptedSearchStreams extends IndexServiceGrpc.IndexServiceImplBase {
  /** What the service does with a request. */
  enum Action {
    /** Answers it, with the next sequence number. */
    ANSWER,
    /** Ends the call with UNAVAILABLE and a RetryInfo of 20 ms, as a stopping service does. */
    HAND_BACK,
    /** Ends the call with UNAVAILABLE without a RetryInfo, as an unreachable service does. */
    UNAVAILABLE,
    /** Ends the call with INVALID_ARGUMENT naming request.top_k. */
    REFUSE,
    /** Answers it with a wrong sequence number. */
    OUT_OF_ORDER,
    /** Ends the call successfully without answering. */
    COMPLETE,
    /** Does nothing. */
    SILENT
  }

  /** Per call, the query ids of the requests it received, in order. */
  final List<List<String>> received = Collections.synchronizedList(new ArrayList<>());

  /** Counted down when a call is half-closed by the client. */
  final CountDownLatch halfClosed = new CountDownLatch(1);

  /** Counted down when a call is cancelled by the client. */
  final CountDownLatch cancelled = new CountDownLatch(1);

  private final BiFunction<Integer, Integer, Action> script;

  ScriptedSearchStreams(BiFunction<Integer, Integer, Action> script) {
    this.script = script;
  }

  /** A request for the query {@code id} of collection {@code c}. */
  static SearchRequest request(String id) {
    return SearchRequest.newBuilder()
        .setCollection("c")
        .setTopK(10)
        .addQueries(dev.tenbin.proto.index.v1.Query.newBuilder().setId(id).setText(id))
        .build();
  }

  /** The answer the service gives {@code request}: one ranking named after its query. */
  static SearchResponse answerTo(SearchRequest request) {
    return SearchResponse.newBuilder()
        .addRankings(Ranking.newBuilder().setQueryId(request.getQueries(0).getId()))
        .build();
  }

  /** The query id an answer is for. */
  static String queryOf(SearchResponse response) {
    return response.getRankings(0).getQueryId();
  }

  /** Calls opened so far. */
  int calls() {
    return received.size();
  }

  /** Requests received so far over every call. */
  int requests() {
    synchronized (received) {
      return received.stream().mapToInt(List::size).sum();
    }
  }

  @Override
  public StreamObserver<SearchStreamRequest> searchStream(
      StreamObserver<SearchStreamResponse> responses) {
    List<String> mine = Collections.synchronizedList(new ArrayList<>());
    int call;
    synchronized (received) {
      call = received.size();
      received.add(mine);
    }
    ((ServerCallStreamObserver<SearchStreamResponse>) responses)
        .setOnCancelHandler(cancelled::countDown);
    return new StreamObserver<>() {
      long sequence;
      boolean ended;

      @Override
      public void onNext(SearchStreamRequest message) {
        if (ended) {
          return;
        }
        int position = mine.size();
        mine.add(message.getRequest().getQueries(0).getId());
        switch (script.apply(call, position)) {
          case ANSWER ->
              responses.onNext(
                  SearchStreamResponse.newBuilder()
                      .setResponse(answerTo(message.getRequest()))
                      .setSequence(++sequence)
                      .build());
          case HAND_BACK -> end(StatusMapper.unavailable("stopping", Duration.ofMillis(20)));
          case UNAVAILABLE -> end(Status.UNAVAILABLE.withDescription("gone").asRuntimeException());
          case REFUSE ->
              end(Status.INVALID_ARGUMENT.withDescription("request.top_k").asRuntimeException());
          case OUT_OF_ORDER ->
              responses.onNext(
                  SearchStreamResponse.newBuilder()
                      .setResponse(answerTo(message.getRequest()))
                      .setSequence(sequence + 2)
                      .build());
          case COMPLETE -> {
            ended = true;
            responses.onCompleted();
          }
          case SILENT -> {}
        }
      }

      private void end(Throwable failure) {
        ended = true;
        responses.onError(failure);
      }

      @Override
      public void onError(Throwable t) {
        ended = true;
      }

      @Override
      public void onCompleted() {
        halfClosed.countDown();
        if (!ended) {
          ended = true;
          responses.onCompleted();
        }
      }
    };
  }
}
