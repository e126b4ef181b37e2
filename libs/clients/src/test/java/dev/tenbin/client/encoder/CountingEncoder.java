package dev.tenbin.client.encoder;

import dev.tenbin.proto.common.v1.DenseVector;
import dev.tenbin.proto.encoder.v1.EncodeDenseRequest;
import dev.tenbin.proto.encoder.v1.EncodeDenseResponse;
import dev.tenbin.proto.encoder.v1.EncoderServiceGrpc;
import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A fake encoder counting the EncodeDense calls it gets: answers each text with the vector {@code
 * [id]}, or refuses every call with UNAVAILABLE when made {@code unavailable}.
 */
final class CountingEncoder extends EncoderServiceGrpc.EncoderServiceImplBase {
  final AtomicInteger calls = new AtomicInteger();
  private final float id;
  private final boolean unavailable;

  CountingEncoder(float id, boolean unavailable) {
    this.id = id;
    this.unavailable = unavailable;
  }

  @Override
  public void encodeDense(
      EncodeDenseRequest request, StreamObserver<EncodeDenseResponse> responses) {
    calls.incrementAndGet();
    if (unavailable) {
      responses.onError(Status.UNAVAILABLE.withDescription("restarting").asRuntimeException());
      return;
    }
    EncodeDenseResponse.Builder response = EncodeDenseResponse.newBuilder();
    for (int i = 0; i < request.getTextsCount(); i++) {
      response.addVectors(DenseVector.newBuilder().addValues(id));
    }
    responses.onNext(response.build());
    responses.onCompleted();
  }
}
