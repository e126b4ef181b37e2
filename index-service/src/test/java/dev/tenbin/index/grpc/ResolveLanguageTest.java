package dev.tenbin.index.grpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.rpc.BadRequest;
import dev.tenbin.index.server.IndexServer;
import dev.tenbin.proto.index.v1.IndexServiceGrpc;
import dev.tenbin.proto.index.v1.LanguageSource;
import dev.tenbin.proto.index.v1.ResolveLanguageRequest;
import dev.tenbin.proto.index.v1.ResolveLanguageResponse;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.grpc.protobuf.StatusProto;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * ResolveLanguage: the index names the analyzer language clients create lexical collections with.
 */
class ResolveLanguageTest {
  @TempDir Path dataDir;
  private IndexServer.Embedded server;
  private ManagedChannel channel;
  private IndexServiceGrpc.IndexServiceBlockingStub index;

  @BeforeEach
  void start() {
    String name = "index-language-" + UUID.randomUUID();
    server = IndexServer.startInProcess(name, dataDir, new SimpleMeterRegistry());
    channel = InProcessChannelBuilder.forName(name).directExecutor().build();
    index = IndexServiceGrpc.newBlockingStub(channel).withDeadlineAfter(30, TimeUnit.SECONDS);
  }

  @AfterEach
  void stop() {
    channel.shutdownNow();
    server.close();
  }

  private ResolveLanguageResponse resolve(String language, String sample) {
    return index.resolveLanguage(
        ResolveLanguageRequest.newBuilder().setLanguage(language).setTextSample(sample).build());
  }

  @Test
  void aGivenCodeIsNormalisedAndTheSampleIgnored() {
    ResolveLanguageResponse response =
        resolve("DE_at", "Der Hund und die Katze sind nicht in dem Haus.");
    assertThat(response.getLanguage()).isEqualTo("de");
    assertThat(response.getSource()).isEqualTo(LanguageSource.LANGUAGE_SOURCE_GIVEN);
    assertThat(resolve("pt_BR", "the cat").getLanguage()).isEqualTo("pt-br");
  }

  @Test
  void withoutACodeTheLanguageIsDetectedFromTheSample() {
    ResolveLanguageResponse german =
        resolve(
            "", "Der Hund und die Katze sind nicht in dem Haus, aber sie sind auch nicht draußen.");
    ResolveLanguageResponse japanese = resolve("", "猫はこたつで丸くなる。犬は庭を駆け回る。");
    ResolveLanguageResponse english =
        resolve("", "The dog and the cat are not in the house, and they are not outside either.");

    assertThat(german.getLanguage()).isEqualTo("de");
    assertThat(german.getSource()).isEqualTo(LanguageSource.LANGUAGE_SOURCE_DETECTED);
    assertThat(japanese.getLanguage()).isEqualTo("ja");
    assertThat(english.getLanguage()).isEqualTo("en");
  }

  @Test
  void anUnknownCodeOrAnOversizedSampleIsAnInvalidArgumentNamingTheField() {
    assertThat(violatedField(() -> resolve("klingon", ""))).isEqualTo("language");
    assertThat(
            violatedField(
                () -> resolve("", "a".repeat(IndexGrpcService.MAX_LANGUAGE_SAMPLE_CHARS + 1))))
        .isEqualTo("text_sample");
  }

  private static String violatedField(Runnable call) {
    StatusRuntimeException[] failure = new StatusRuntimeException[1];
    assertThatThrownBy(call::run)
        .isInstanceOfSatisfying(StatusRuntimeException.class, e -> failure[0] = e);
    assertThat(failure[0].getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
    try {
      for (var detail : StatusProto.fromThrowable(failure[0]).getDetailsList()) {
        if (detail.is(BadRequest.class)) {
          return detail.unpack(BadRequest.class).getFieldViolations(0).getField();
        }
      }
    } catch (com.google.protobuf.InvalidProtocolBufferException e) {
      throw new AssertionError(e);
    }
    throw new AssertionError("no BadRequest detail in " + failure[0]);
  }
}
