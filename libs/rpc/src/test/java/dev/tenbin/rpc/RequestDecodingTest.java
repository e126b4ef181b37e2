package dev.tenbin.rpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.Empty;
import com.google.rpc.BadRequest;
import dev.tenbin.rpc.testing.TestService;
import dev.tenbin.testing.rpc.MalformedRequests;
import dev.tenbin.testing.rpc.UndecodableRequests;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class RequestDecodingTest {
  private final TestService service = new TestService();
  private GrpcServerHost host;
  private ManagedChannel channel;

  @BeforeEach
  void start() {
    host =
        GrpcServerHost.start(
            new ServerSettings("127.0.0.1", 0, 0, 4096, Duration.ofSeconds(2)), List.of(service));
    channel = ClientChannels.open("127.0.0.1", host.port(), ClientSecurity.plaintext(), 1 << 20);
  }

  @AfterEach
  void stop() {
    channel.shutdownNow();
    host.close();
  }

  @Test
  void aStringFieldThatIsNotUtf8IsInvalidArgumentNamingTheFieldWithNothingLoggedAsSevere() {
    // StringValue.value (field 1) holding 0xC3 0x28: a lead byte without its continuation.
    byte[] request = {0x0A, 0x02, (byte) 0xC3, 0x28};
    MalformedRequests.Outcome outcome =
        MalformedRequests.send(channel, TestService.CHECK.getFullMethodName(), request);

    assertThat(outcome.status().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
    assertThat(outcome.field()).isEqualTo("value");
    assertThat(outcome.status().getDescription()).isEqualTo("value is not valid UTF-8");
    assertThat(outcome.severeLogRecords()).isEmpty();
    // The service still answers well-formed calls.
    TestService.check(channel, "ok");
  }

  @Test
  void bytesThatAreNotAMessageAtAllAreInvalidArgumentNamingTheMessage() {
    byte[] truncated = {0x0A, 0x7F, 0x41};
    MalformedRequests.Outcome outcome =
        MalformedRequests.send(channel, TestService.CHECK.getFullMethodName(), truncated);

    assertThat(outcome.status().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
    assertThat(outcome.field()).isNull();
    assertThat(outcome.status().getDescription())
        .contains("not a valid google.protobuf.StringValue message");
    assertThat(outcome.severeLogRecords()).isEmpty();
  }

  @Test
  void theFieldIsFoundInsideNestedAndRepeatedMessages() {
    BadRequest valid =
        BadRequest.newBuilder()
            .addFieldViolations(BadRequest.FieldViolation.newBuilder().setField("a"))
            .addFieldViolations(BadRequest.FieldViolation.newBuilder().setField("b"))
            .build();
    byte[] bytes = valid.toByteArray();
    // The second violation's field "b" becomes a lone continuation byte.
    bytes[bytes.length - 1] = (byte) 0x80;

    RequestDecoding.Failure failure = RequestDecoding.explain(BadRequest.getDescriptor(), bytes);

    assertThat(failure.field()).isEqualTo("field_violations[1].field");
    assertThatThrownBy(() -> BadRequest.parseFrom(bytes)).isNotNull();
    assertThat(RequestDecoding.explain(Empty.getDescriptor(), new byte[] {(byte) 0xFF}).field())
        .isNull();
  }

  @Test
  void undecodableRequestsOnEveryMethodAreRecordedAsInvalidArgumentWithoutAnyErrorLogged() {
    io.grpc.ServiceDescriptor descriptor = service.bindService().getServiceDescriptor();

    UndecodableRequests.Report report = UndecodableRequests.sendToEveryMethod(channel, descriptor);

    assertThat(report.answers())
        .hasSize(2)
        .allSatisfy(
            answer ->
                assertThat(answer.status().getCode())
                    .as(answer.method())
                    .isEqualTo(Status.Code.INVALID_ARGUMENT));
    assertThat(UndecodableRequests.recordedStatusCodes(host.registry(), descriptor))
        .isNotEmpty()
        .containsOnly("INVALID_ARGUMENT");
    assertThat(report.loud()).isEmpty();
    assertThat(report.events()).hasSizeLessThanOrEqualTo(report.answers().size());
    // The refused message never reached the method, and the method still serves.
    assertThat(service.collected()).isZero();
    TestService.check(channel, "ok");
  }

  @Test
  void aStreamRefusedForAnUndecodableMessageIsEndedForItsHandlerToo() throws Exception {
    var done = new java.util.concurrent.CompletableFuture<Status>();
    io.grpc.ClientCall<com.google.protobuf.StringValue, Empty> call =
        channel.newCall(
            TestService.COLLECT,
            io.grpc.CallOptions.DEFAULT.withDeadlineAfter(
                10, java.util.concurrent.TimeUnit.SECONDS));
    var requests =
        io.grpc.stub.ClientCalls.asyncClientStreamingCall(
            call,
            new io.grpc.stub.StreamObserver<Empty>() {
              @Override
              public void onNext(Empty value) {}

              @Override
              public void onError(Throwable t) {
                done.complete(Status.fromThrowable(t));
              }

              @Override
              public void onCompleted() {
                done.complete(Status.OK);
              }
            });
    requests.onNext(com.google.protobuf.StringValue.of("first"));
    requests.onNext(com.google.protobuf.StringValue.of("second"));
    requests.onCompleted();
    assertThat(done.get(10, java.util.concurrent.TimeUnit.SECONDS).getCode())
        .isEqualTo(Status.Code.OK);
    assertThat(service.collected()).isEqualTo(2);
  }

  @Test
  void aCallRefusedThisWayCannotBeMistakenForAServerFailure() {
    assertThatThrownBy(() -> TestService.check(channel, "boom"))
        .isInstanceOfSatisfying(
            StatusRuntimeException.class,
            e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.INTERNAL));
  }
}
