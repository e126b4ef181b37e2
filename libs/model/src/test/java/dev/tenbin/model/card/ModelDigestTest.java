package dev.tenbin.model.card;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenbin.testing.models.TinyModels;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ModelDigestTest {
  @TempDir Path tmp;

  @Test
  void theSameFilesInAnotherFolderHaveTheSameDigest() throws IOException {
    Path first = TinyModels.dense(tmp.resolve("a"), "tiny", false);
    Path second = TinyModels.dense(tmp.resolve("b"), "tiny", false);

    String digest = ModelDigest.of(LocalModelDirectory.load(first));

    assertThat(digest).hasSize(64).matches("[0-9a-f]+");
    assertThat(ModelDigest.of(LocalModelDirectory.load(second))).isEqualTo(digest);
    assertThat(ModelDigest.of(LocalModelDirectory.load(first))).isEqualTo(digest);
  }

  @Test
  void aModifiedOnnxFileChangesTheDigest() throws IOException {
    Path model = TinyModels.dense(tmp, "tiny", false);
    String before = ModelDigest.of(LocalModelDirectory.load(model));

    byte[] onnx = Files.readAllBytes(model.resolve("model.onnx"));
    onnx[onnx.length - 1] ^= 1;
    Files.write(model.resolve("model.onnx"), onnx);

    assertThat(ModelDigest.of(LocalModelDirectory.load(model))).isNotEqualTo(before);
  }

  @Test
  void aChangedTokenizerOrCardChangesTheDigestButTheRevisionStringAloneDoesNotHideIt()
      throws IOException {
    Path model = TinyModels.dense(tmp, "tiny", false);
    ModelFiles files = LocalModelDirectory.load(model);
    String before = ModelDigest.of(files);

    byte[] tokenizer =
        java.util.Arrays.copyOf(files.tokenizerJson(), files.tokenizerJson().length + 1);
    tokenizer[tokenizer.length - 1] = ' ';
    assertThat(ModelDigest.of(new ModelFiles(files.card(), files.onnx(), tokenizer)))
        .isNotEqualTo(before);

    ModelCard card = files.card();
    ModelCard otherPrompt =
        new ModelCard(
            card.id(),
            card.revision(),
            card.source(),
            card.onnxFile(),
            card.tokenizerFile(),
            card.pooling(),
            card.normalize(),
            card.dimension(),
            card.matryoshkaDimensions(),
            card.maxLength(),
            "search: ",
            card.documentPrompt(),
            card.outputKind(),
            card.totalParameters(),
            card.activeParameters(),
            card.resolvedSha());
    assertThat(ModelDigest.of(new ModelFiles(otherPrompt, files.onnx(), files.tokenizerJson())))
        .isNotEqualTo(before);
  }

  @Test
  void partsAreLengthPrefixedSoMovingBytesBetweenThemChangesTheDigest() {
    byte[] card = ModelDigest.canonicalJson(java.util.Map.of("id", "m"));
    assertThat(ModelDigest.of(new byte[] {1, 2}, new byte[] {3}, card))
        .isNotEqualTo(ModelDigest.of(new byte[] {1}, new byte[] {2, 3}, card));
  }
}
