package dev.tenbin.client.index;

import static dev.tenbin.client.index.ScriptedSearchStreams.queryOf;
import static dev.tenbin.client.index.ScriptedSearchStreams.request;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tenbin.client.CallPolicy;
import dev.tenbin.client.TestServers;
import dev.tenbin.client.index.ScriptedSearchStreams.Action;
import io.grpc.Deadline;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.assertj.core.api.ThrowableAssert;
import org.junit.jupiter.api.Test;

/**
 * {@link SearchStream} against a scripted fake index service: answers in order over one call, a
 * stream handed back with UNAVAILABLE resumed with the unanswered requests sent again (every answer
 * once and in order), other failures ending the stream, and the stream's deadline.
 */
class SearchStreamTest {
  private static IndexClient client(TestServers.InProcess server, Duration deadline) {
    return new IndexClient(server.channel(), new CallPolicy(deadline, 1));
  }

  private static void assertFailsWith(ThrowableAssert.ThrowingCallable call, Status.Code code) {
    assertThatThrownBy(call)
        .isInstanceOfSatisfying(
            StatusRuntimeException.class, e -> assertThat(e.getStatus().getCode()).isEqualTo(code));
  }

  private static TestServers.InProcess serve(ScriptedSearchStreams index) {
    return TestServers.inProcess(index);
  }

  @Test
  void searchesAreAnsweredInOrderOverOneCallAndCloseHalfClosesIt() throws Exception {
    ScriptedSearchStreams index = new ScriptedSearchStreams((call, position) -> Action.ANSWER);
    try (var server = serve(index)) {
      SearchStream stream = client(server, Duration.ofSeconds(10)).searchStream();
      for (String id : List.of("q1", "q2", "q3")) {
        assertThat(queryOf(stream.search(request(id)))).isEqualTo(id);
      }
      stream.close();
      assertThat(index.halfClosed.await(5, TimeUnit.SECONDS)).isTrue();
      assertThat(index.received).containsExactly(List.of("q1", "q2", "q3"));
      stream.close(); // a second close does nothing
      assertThatThrownBy(() -> stream.send(request("q4")))
          .isInstanceOf(IllegalStateException.class);
    }
  }

  @Test
  void pipelinedRequestsAreAnsweredInTheOrderSent() throws Exception {
    ScriptedSearchStreams index = new ScriptedSearchStreams((call, position) -> Action.ANSWER);
    try (var server = serve(index);
        SearchStream stream = client(server, Duration.ofSeconds(10)).searchStream()) {
      for (String id : List.of("a", "b", "c")) {
        stream.send(request(id));
      }
      assertThatThrownBy(() -> stream.search(request("d")))
          .as("search with requests in flight")
          .isInstanceOf(IllegalStateException.class);
      List<String> answers = new ArrayList<>();
      for (int i = 0; i < 3; i++) {
        answers.add(queryOf(stream.next()));
      }
      assertThat(answers).containsExactly("a", "b", "c");
      assertThatThrownBy(stream::next)
          .as("next with nothing in flight")
          .isInstanceOf(IllegalStateException.class);
    }
  }

  @Test
  void aStreamHandedBackIsResumedWithTheUnansweredRequestAndEveryAnswerComesOnce()
      throws Exception {
    // The first call answers q1 and hands the stream back on q2; later calls answer everything.
    ScriptedSearchStreams index =
        new ScriptedSearchStreams(
            (call, position) -> call == 0 && position == 1 ? Action.HAND_BACK : Action.ANSWER);
    try (var server = serve(index);
        SearchStream stream = client(server, Duration.ofSeconds(10)).searchStream()) {
      List<String> answers = new ArrayList<>();
      for (String id : List.of("q1", "q2", "q3")) {
        answers.add(queryOf(stream.search(request(id))));
      }
      assertThat(answers).containsExactly("q1", "q2", "q3");
      assertThat(index.received)
          .as("q2 sent again on a new call, then q3 on it")
          .containsExactly(List.of("q1", "q2"), List.of("q2", "q3"));
    }
  }

  @Test
  void pipelinedRequestsUnansweredWhenTheStreamIsHandedBackAreSentAgainInOrder() throws Exception {
    ScriptedSearchStreams index =
        new ScriptedSearchStreams(
            (call, position) -> call == 0 && position == 1 ? Action.HAND_BACK : Action.ANSWER);
    try (var server = serve(index);
        SearchStream stream = client(server, Duration.ofSeconds(10)).searchStream()) {
      List<String> ids = List.of("a", "b", "c", "d");
      for (String id : ids) {
        stream.send(request(id));
      }
      List<String> answers = new ArrayList<>();
      for (int i = 0; i < ids.size(); i++) {
        answers.add(queryOf(stream.next()));
      }
      assertThat(answers).containsExactly("a", "b", "c", "d");
      assertThat(index.calls()).isEqualTo(2);
      assertThat(index.received.get(1)).containsExactly("b", "c", "d");
    }
  }

  @Test
  void withoutARetryInfoTheStreamIsResumedAfterTheBackoff() throws Exception {
    ScriptedSearchStreams index =
        new ScriptedSearchStreams(
            (call, position) -> call == 0 ? Action.UNAVAILABLE : Action.ANSWER);
    try (var server = serve(index);
        SearchStream stream = client(server, Duration.ofSeconds(10)).searchStream()) {
      long start = System.nanoTime();
      assertThat(queryOf(stream.search(request("q")))).isEqualTo("q");
      assertThat(Duration.ofNanos(System.nanoTime() - start))
          .isGreaterThanOrEqualTo(SearchStream.FIRST_BACKOFF);
      assertThat(index.received).containsExactly(List.of("q"), List.of("q"));
    }
  }

  @Test
  void resumptionsAreCountedInARowSoAStreamHandedBackAfterEachAnswerKeepsGoing() throws Exception {
    // Every call answers its first request and hands the stream back on its second.
    ScriptedSearchStreams index =
        new ScriptedSearchStreams(
            (call, position) -> position == 0 ? Action.ANSWER : Action.HAND_BACK);
    int searches = SearchStream.MAX_RESUMES + 2;
    try (var server = serve(index);
        SearchStream stream = client(server, Duration.ofSeconds(30)).searchStream()) {
      for (int i = 0; i < searches; i++) {
        assertThat(queryOf(stream.search(request("q" + i)))).isEqualTo("q" + i);
      }
      assertThat(index.calls())
          .as("more resumptions than MAX_RESUMES, never that many in a row")
          .isEqualTo(searches);
    }
  }

  @Test
  void anotherFailureEndsTheStreamAndLaterSearchesSendNothing() throws Exception {
    ScriptedSearchStreams index =
        new ScriptedSearchStreams(
            (call, position) -> position == 1 ? Action.REFUSE : Action.ANSWER);
    try (var server = serve(index);
        SearchStream stream = client(server, Duration.ofSeconds(10)).searchStream()) {
      assertThat(queryOf(stream.search(request("q1")))).isEqualTo("q1");
      assertThatThrownBy(() -> stream.search(request("q2")))
          .isInstanceOfSatisfying(
              StatusRuntimeException.class,
              e -> {
                assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
                assertThat(e.getStatus().getDescription()).contains("request.top_k");
              });
      int requests = index.requests();
      assertFailsWith(() -> stream.search(request("q3")), Status.Code.INVALID_ARGUMENT);
      assertFailsWith(() -> stream.send(request("q4")), Status.Code.INVALID_ARGUMENT);
      assertThat(index.requests()).as("nothing sent after the stream ended").isEqualTo(requests);
      assertThat(index.calls()).as("INVALID_ARGUMENT is not resumed").isEqualTo(1);
    }
  }

  @Test
  void aServiceThatNeverAnswersFailsWithDeadlineExceededAtTheStreamsDeadline() throws Exception {
    ScriptedSearchStreams index = new ScriptedSearchStreams((call, position) -> Action.SILENT);
    try (var server = serve(index);
        SearchStream stream = client(server, Duration.ofMillis(300)).searchStream()) {
      long start = System.nanoTime();
      assertFailsWith(() -> stream.search(request("q")), Status.Code.DEADLINE_EXCEEDED);
      assertThat(Duration.ofNanos(System.nanoTime() - start).toMillis()).isBetween(280L, 5_000L);
      assertThat(index.calls()).as("DEADLINE_EXCEEDED is not resumed").isEqualTo(1);
    }
  }

  @Test
  void resumptionsNeverGoPastTheDeadline() throws Exception {
    ScriptedSearchStreams index = new ScriptedSearchStreams((call, position) -> Action.UNAVAILABLE);
    try (var server = serve(index);
        SearchStream stream =
            client(server, Duration.ofMinutes(1))
                .searchStream(Deadline.after(1, TimeUnit.SECONDS))) {
      long start = System.nanoTime();
      AtomicReference<Status.Code> code = new AtomicReference<>();
      assertThatThrownBy(() -> stream.search(request("q")))
          .isInstanceOfSatisfying(
              StatusRuntimeException.class, e -> code.set(e.getStatus().getCode()));
      assertThat(code.get()).isIn(Status.Code.UNAVAILABLE, Status.Code.DEADLINE_EXCEEDED);
      assertThat(Duration.ofNanos(System.nanoTime() - start).toMillis())
          .as("given up by the 1 s deadline, not after MAX_RESUMES backoffs")
          .isLessThan(3_000L);
      assertThat(index.calls()).as("resumed before the deadline").isGreaterThanOrEqualTo(2);
    }
  }

  @Test
  void anAnswerOutOfOrderEndsTheStreamWithInternal() throws Exception {
    ScriptedSearchStreams index =
        new ScriptedSearchStreams(
            (call, position) -> position == 1 ? Action.OUT_OF_ORDER : Action.ANSWER);
    try (var server = serve(index);
        SearchStream stream = client(server, Duration.ofSeconds(10)).searchStream()) {
      stream.search(request("q1"));
      assertFailsWith(() -> stream.search(request("q2")), Status.Code.INTERNAL);
      assertFailsWith(() -> stream.search(request("q3")), Status.Code.INTERNAL);
      assertThat(index.cancelled.await(5, TimeUnit.SECONDS)).as("the call is cancelled").isTrue();
    }
  }

  @Test
  void aStreamEndedBeforeItsAnswerIsInternal() throws Exception {
    ScriptedSearchStreams index = new ScriptedSearchStreams((call, position) -> Action.COMPLETE);
    try (var server = serve(index);
        SearchStream stream = client(server, Duration.ofSeconds(10)).searchStream()) {
      assertFailsWith(() -> stream.search(request("q")), Status.Code.INTERNAL);
      assertThat(index.calls()).isEqualTo(1);
    }
  }

  @Test
  void aCallerInterruptedWhileWaitingCancelsTheStream() throws Exception {
    ScriptedSearchStreams index = new ScriptedSearchStreams((call, position) -> Action.SILENT);
    try (var server = serve(index);
        SearchStream stream = client(server, Duration.ofSeconds(30)).searchStream()) {
      AtomicReference<Throwable> thrown = new AtomicReference<>();
      Thread caller =
          Thread.ofPlatform()
              .start(
                  () -> {
                    try {
                      stream.search(request("q"));
                    } catch (RuntimeException e) {
                      thrown.set(e);
                    }
                  });
      while (index.requests() == 0) {
        Thread.sleep(1);
      }
      caller.interrupt();
      caller.join(5_000);
      assertThat(caller.isAlive()).isFalse();
      assertThat(Status.fromThrowable(thrown.get()).getCode()).isEqualTo(Status.Code.CANCELLED);
      assertThat(index.cancelled.await(5, TimeUnit.SECONDS)).isTrue();
      assertFailsWith(() -> stream.search(request("q2")), Status.Code.CANCELLED);
    }
  }
}
