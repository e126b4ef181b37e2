package dev.tenbin.testing.models;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Writes the test models to a folder, for benchmarks of code paths no published model covers:
 * {@code java -cp <test classpath> dev.tenbin.testing.models.WriteTinyModels DIR}.
 */
public final class WriteTinyModels {
  private WriteTinyModels() {}

  public static void main(String[] args) throws Exception {
    Path models = Path.of(args[0]);
    TinyModels.dense(models, "tiny-dense", false);
    Path ce = Files.createDirectories(models.resolve("tiny-cross-encoder"));
    int v = TinyModels.VOCABULARY;
    int h = TinyModels.HIDDEN;
    Files.write(
        ce.resolve("model.onnx"),
        TinyOnnxModels.pairClassifier(
            TinyOnnxModels.table(v, h, 1), TinyOnnxModels.table(h, 1, 2), v, h, 1, false));
    Files.write(ce.resolve("tokenizer.json"), TinyOnnxModels.wordLevelTokenizer(TinyModels.WORDS));
    Files.writeString(
        ce.resolve("card.json"), "{\"id\":\"tiny-cross-encoder\",\"head\":\"SIGMOID\"}");
  }
}
