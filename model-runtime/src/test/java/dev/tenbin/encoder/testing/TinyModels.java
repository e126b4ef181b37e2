package dev.tenbin.encoder.testing;

import dev.tenbin.encoder.model.LocalModelDirectory;
import dev.tenbin.encoder.model.ModelCard;
import dev.tenbin.encoder.model.OutputKind;
import dev.tenbin.encoder.model.Pooling;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/** Local model folders (card.json + model.onnx + tokenizer.json) built from tiny ONNX graphs. */
public final class TinyModels {
  public static final List<String> WORDS =
      List.of("apple", "banana", "cherry", "date", "elder", "fig", "grape", "query");
  public static final int VOCABULARY = WORDS.size() + 4;
  public static final int HIDDEN = 8;

  private TinyModels() {}

  private static ModelCard card(
      String id,
      Pooling pooling,
      OutputKind kind,
      int dimension,
      String queryPrompt,
      List<Integer> matryoshka) {
    return new ModelCard(
        id,
        "test-rev",
        "",
        "model.onnx",
        "tokenizer.json",
        pooling,
        kind != OutputKind.SPARSE,
        dimension,
        matryoshka,
        32,
        queryPrompt,
        "",
        kind,
        100,
        100,
        "");
  }

  public static Path dense(Path modelsDir, String id, boolean fp16) throws IOException {
    return write(
        modelsDir.resolve(id),
        card(id, Pooling.MEAN, OutputKind.DENSE, HIDDEN, "query ", List.of(4)),
        TinyOnnxModels.embeddingEncoder(
            TinyOnnxModels.table(VOCABULARY, HIDDEN, 42), VOCABULARY, HIDDEN, fp16));
  }

  public static Path multiVector(Path modelsDir, String id) throws IOException {
    return write(
        modelsDir.resolve(id),
        card(id, Pooling.CLS, OutputKind.MULTIVECTOR, HIDDEN, "", List.of()),
        TinyOnnxModels.embeddingEncoder(
            TinyOnnxModels.table(VOCABULARY, HIDDEN, 43), VOCABULARY, HIDDEN, false));
  }

  public static Path sparse(Path modelsDir, String id) throws IOException {
    return write(
        modelsDir.resolve(id),
        card(id, Pooling.CLS, OutputKind.SPARSE, VOCABULARY, "", List.of()),
        TinyOnnxModels.mlmEncoder(
            TinyOnnxModels.table(VOCABULARY, HIDDEN, 44),
            TinyOnnxModels.table(HIDDEN, VOCABULARY, 45),
            VOCABULARY,
            HIDDEN));
  }

  private static Path write(Path dir, ModelCard card, byte[] onnx) throws IOException {
    Files.createDirectories(dir);
    Files.write(dir.resolve("model.onnx"), onnx);
    Files.write(dir.resolve("tokenizer.json"), TinyOnnxModels.wordLevelTokenizer(WORDS));
    LocalModelDirectory.writeCard(dir, card);
    return dir;
  }
}
