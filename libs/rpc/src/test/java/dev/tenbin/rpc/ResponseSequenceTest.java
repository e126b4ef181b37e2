package dev.tenbin.rpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.grpc.stub.ServerCallStreamObserver;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class ResponseSequenceTest {
  /** A server stream whose client takes {@code credit} more messages before it is not ready. */
  private static final class FakeCall extends ServerCallStreamObserver<Integer> {
    final List<Integer> sent = new ArrayList<>();
    int credit;
    boolean completed;
    boolean cancelled;
    Runnable onReady = () -> {};
    Runnable onCancel = () -> {};

    FakeCall(int credit) {
      this.credit = credit;
    }

    void clientReads(int messages) {
      credit += messages;
      onReady.run();
    }

    void clientCancels() {
      cancelled = true;
      onCancel.run();
    }

    @Override
    public boolean isReady() {
      return credit > 0;
    }

    @Override
    public boolean isCancelled() {
      return cancelled;
    }

    @Override
    public void setOnReadyHandler(Runnable handler) {
      onReady = handler;
    }

    @Override
    public void setOnCancelHandler(Runnable handler) {
      onCancel = handler;
    }

    @Override
    public void onNext(Integer value) {
      assertThat(completed).as("sent after completion").isFalse();
      sent.add(value);
      credit--;
    }

    @Override
    public void onError(Throwable t) {
      throw new AssertionError("onError", t);
    }

    @Override
    public void onCompleted() {
      assertThat(completed).as("completed twice").isFalse();
      completed = true;
    }

    @Override
    public void setCompression(String compression) {}

    @Override
    public void disableAutoInboundFlowControl() {}

    @Override
    public void request(int count) {}

    @Override
    public void setMessageCompression(boolean enable) {}
  }

  /** Counts from 0 to {@code end - 1}, remembering how far it was asked and whether it closed. */
  private static class Counting implements ResponseSequence.Source<Integer> {
    final int end;
    int next;
    int closed;

    Counting(int end) {
      this.end = end;
    }

    @Override
    public boolean hasNext() {
      return next < end;
    }

    @Override
    public Integer next() {
      return next++;
    }

    @Override
    public void close() {
      closed++;
    }
  }

  @Test
  void sendsOnlyWhileTheClientIsReadyAndResumesWhenItReadsAgain() {
    FakeCall call = new FakeCall(2);
    Counting source = new Counting(5);
    ResponseSequence.send(call, source);
    assertThat(call.sent).isEmpty();

    call.onReady.run();
    assertThat(call.sent).containsExactly(0, 1);
    assertThat(source.next).as("nothing made ahead of the reader").isEqualTo(2);
    assertThat(call.completed).isFalse();

    call.clientReads(1);
    assertThat(call.sent).containsExactly(0, 1, 2);
    call.clientReads(10);
    assertThat(call.sent).containsExactly(0, 1, 2, 3, 4);
    assertThat(call.completed).isTrue();
    assertThat(source.closed).isEqualTo(1);
  }

  @Test
  void theLastResponseCompletesTheCallAtOnceAndALaterOnReadySendsNothing() {
    FakeCall call = new FakeCall(3);
    Counting source = new Counting(3);
    ResponseSequence.send(call, source);
    call.onReady.run();
    assertThat(call.sent).containsExactly(0, 1, 2);
    assertThat(call.completed).isTrue();
    call.clientReads(1);
    assertThat(call.sent).hasSize(3);
    assertThat(source.closed).isEqualTo(1);
  }

  @Test
  void aCancelledCallGetsNothingMoreAndItsSourceIsClosed() {
    FakeCall call = new FakeCall(1);
    Counting source = new Counting(5);
    ResponseSequence.send(call, source);
    call.onReady.run();
    call.clientCancels();
    call.clientReads(10);
    assertThat(call.sent).containsExactly(0);
    assertThat(call.completed).isFalse();
    assertThat(source.closed).isEqualTo(1);
  }

  @Test
  void aStepWithNothingToSendIsSkipped() {
    FakeCall call = new FakeCall(10);
    Counting source =
        new Counting(4) {
          @Override
          public Integer next() {
            int value = next++;
            return value % 2 == 0 ? null : value;
          }
        };
    ResponseSequence.send(call, source);
    call.onReady.run();
    assertThat(call.sent).containsExactly(1, 3);
    assertThat(call.completed).isTrue();
  }

  @Test
  void aResponseThatCannotBeMadeEndsTheSequenceAndIsThrownToTheInterceptor() {
    FakeCall call = new FakeCall(10);
    Counting source =
        new Counting(5) {
          @Override
          public Integer next() {
            if (next == 2) {
              throw new IllegalStateException("chunk 2 failed");
            }
            return next++;
          }
        };
    ResponseSequence.send(call, source);
    assertThatThrownBy(call.onReady::run).hasMessage("chunk 2 failed");
    assertThat(call.sent).containsExactly(0, 1);
    assertThat(source.closed).isEqualTo(1);
    call.clientReads(1);
    assertThat(call.sent).containsExactly(0, 1);
    assertThat(call.completed).isFalse();
  }
}
