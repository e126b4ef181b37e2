package dev.tenbin.encoder;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import dev.tenbin.core.Cancellation;
import dev.tenbin.encoder.config.EncoderServiceConfig;
import dev.tenbin.model.card.ModelCard;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A real decoder export (docs/decoder-models.md) through the encoder core, when the system property
 * {@code tenbin.decoder.model} or the environment variable {@code TENBIN_DECODER_MODEL} names its
 * folder (model.onnx, tokenizer.json, card.json); skipped otherwise. Checks what must hold for any
 * good embedder: full-width unit vectors, the same vector for a text alone and batched with longer
 * texts (padding side, position ids, EOS), and the relevant passage ranked first.
 */
class RealDecoderExportTest {
  private static Path folder() {
    String path = System.getProperty("tenbin.decoder.model", System.getenv("TENBIN_DECODER_MODEL"));
    return path == null || path.isBlank() ? null : Path.of(path).toAbsolutePath();
  }

  @Test
  void aRealExportEncodesConsistentlyAndRanksTheRelevantPassageFirst() throws Exception {
    Path folder = folder();
    assumeThat(folder)
        .as("set -Dtenbin.decoder.model=DIR or TENBIN_DECODER_MODEL=DIR to run")
        .isNotNull();
    assertThat(folder.resolve("card.json")).exists();
    Path cache = Files.createTempDirectory("tenbin-decoder-cache");
    String id = folder.getFileName().toString();
    try (EncoderCore core =
        new EncoderCore(EncoderServiceConfig.embedded(folder.getParent(), cache))) {
      ModelCard card = core.info(id).card();
      String query = "What is the capital of France?";
      List<String> passages =
          List.of(
              "Paris is the capital and most populous city of France.",
              "The mitochondrion is the powerhouse of the cell; it produces most of the chemical"
                  + " energy needed to power the cell's biochemical reactions.",
              "Photosynthesis converts light energy into chemical energy stored in glucose.");
      float[] q =
          core.encodeDense(id, List.of(query), true, 0, Cancellation.NEVER).vectors().getFirst();
      List<float[]> batched =
          core.encodeDense(id, passages, false, 0, Cancellation.NEVER).vectors();
      float[] alone =
          core.encodeDense(id, List.of(passages.getFirst()), false, 0, Cancellation.NEVER)
              .vectors()
              .getFirst();
      assertThat(q).hasSize(card.dimension());
      if (card.normalize()) {
        assertThat(dot(q, q)).isCloseTo(1.0, org.assertj.core.api.Assertions.within(1e-4));
      }
      assertThat(
              dot(alone, batched.getFirst())
                  / Math.sqrt(dot(alone, alone) * dot(batched.getFirst(), batched.getFirst())))
          .as("a text alone and batched with longer texts")
          .isGreaterThan(0.9999);
      double best = dot(q, batched.get(0));
      assertThat(best).isGreaterThan(dot(q, batched.get(1))).isGreaterThan(dot(q, batched.get(2)));
    }
  }

  private static double dot(float[] a, float[] b) {
    double sum = 0;
    for (int i = 0; i < a.length; i++) {
      sum += (double) a[i] * b[i];
    }
    return sum;
  }
}
