package dev.tenbin.encoder.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tenbin.client.encoder.EncoderClient;
import dev.tenbin.encoder.config.EncoderServiceConfig;
import dev.tenbin.encoder.server.EncoderServer;
import dev.tenbin.rpc.ClientChannels;
import dev.tenbin.rpc.ClientSecurity;
import dev.tenbin.rpc.ServerSettings;
import dev.tenbin.testing.rpc.TestHttp;
import io.grpc.ManagedChannel;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The acceptance check of the HTTP endpoint on real built-in models: {@code POST /v1/embeddings}
 * gives the gRPC {@code EncodeDense} vectors of the same server bit for bit, as floats and as
 * base64, on the query and the document side.
 */
class BuiltinModelHttpParityIT {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final List<String> TEXTS =
      List.of(
          "what is a balance scale?",
          "A considerably longer passage, so that the batch is padded: retrieval systems are"
              + " weighed against each other under identical conditions, and then served.",
          "short",
          "天秤は二つの重さを比べる道具です");

  @TempDir Path tmp;

  @ParameterizedTest(name = "{0} {1} {2}")
  @CsvSource({
    "bge-small-en-v1.5,query,float",
    "bge-small-en-v1.5,document,base64",
    "e5-small-v2,query,base64",
    "e5-small-v2,document,float",
  })
  void httpVectorsEqualGrpcVectorsBitForBit(String model, String side, String format)
      throws Exception {
    EncoderServiceConfig config =
        EncoderServiceConfig.embedded(tmp.resolve("models"), tmp.resolve("cache"))
            .withServer(new ServerSettings("127.0.0.1", 0, -1, 1 << 24, Duration.ofSeconds(10)))
            .withHttpPort(0);
    try (EncoderServer.Embedded server = EncoderServer.start(config)) {
      ManagedChannel channel =
          ClientChannels.open(
              "127.0.0.1", server.host().port(), ClientSecurity.plaintext(), 1 << 24);
      try {
        List<float[]> grpc =
            EncoderClient.of(channel).encodeDense(model, TEXTS, side.equals("query"), 0);
        ObjectNode request = JSON.createObjectNode().put("model", model);
        request
            .putArray("input")
            .addAll(TEXTS.stream().map(JSON.getNodeFactory()::textNode).toList());
        request.put("input_type", side).put("encoding_format", format);
        List<float[]> http =
            EmbeddingsHttpTest.vectors(
                TestHttp.plaintext(server.host().httpPort())
                    .post(EmbeddingsHttpApi.PATH, JSON.writeValueAsString(request)));
        assertThat(http).hasSize(TEXTS.size());
        for (int i = 0; i < TEXTS.size(); i++) {
          assertThat(bits(http.get(i))).as("text %d", i).containsExactly(bits(grpc.get(i)));
        }
      } finally {
        channel.shutdownNow();
      }
    }
  }

  private static int[] bits(float[] vector) {
    int[] out = new int[vector.length];
    for (int i = 0; i < vector.length; i++) {
      out[i] = Float.floatToRawIntBits(vector[i]);
    }
    return out;
  }
}
