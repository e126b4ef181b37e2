package dev.tenbin.rpc;

import io.grpc.stub.ServerCallStreamObserver;
import java.util.function.BooleanSupplier;

/**
 * Reads a bidirectional stream's requests no faster than their answers can be sent: manual inbound
 * flow control, where the next request is asked for ({@code request(1)}) only once the last one is
 * answered and the client can take another answer ({@code isReady}), resuming on the on-ready
 * handler. A client that sends faster than it reads therefore waits in gRPC's own flow control, and
 * the service holds a bounded number of its requests. All methods run on the call's serialized
 * callbacks.
 */
public final class PacedRequests {
  private final ServerCallStreamObserver<?> responses;
  private final int firstRequests;
  private final BooleanSupplier finished;
  private boolean due = true;
  private boolean started;

  /**
   * Turns off automatic requests of {@code responses} and installs its on-ready handler; call it
   * from the service method, before it returns. The first time, {@code firstRequests} requests are
   * asked for (2 reads one ahead, so it waits read while the first is answered); after that one at
   * a time. Nothing more is asked for once {@code finished} says so.
   */
  public PacedRequests(
      ServerCallStreamObserver<?> responses, int firstRequests, BooleanSupplier finished) {
    if (firstRequests < 1) {
      throw new IllegalArgumentException("first requests must be at least 1, got " + firstRequests);
    }
    this.responses = responses;
    this.firstRequests = firstRequests;
    this.finished = finished;
    responses.disableAutoRequest();
    responses.setOnReadyHandler(this::requestNextWhenReady);
  }

  /** The last request is answered: the next is asked for as soon as its answer could be sent. */
  public void answered() {
    due = true;
    requestNextWhenReady();
  }

  private void requestNextWhenReady() {
    if (!finished.getAsBoolean() && due && responses.isReady()) {
      due = false;
      responses.request(started ? 1 : firstRequests);
      started = true;
    }
  }
}
