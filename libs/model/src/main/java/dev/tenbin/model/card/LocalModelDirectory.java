package dev.tenbin.model.card;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tenbin.core.InvalidInputException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A model in a local folder: {@code card.json}, the ONNX graph and {@code tokenizer.json} (file
 * names from the card; defaults {@code model.onnx} and {@code tokenizer.json}), and optionally the
 * model's sentence-transformers files, against which the card is checked at load.
 */
public final class LocalModelDirectory {
  public static final ObjectMapper JSON =
      new ObjectMapper().configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false);

  private LocalModelDirectory() {}

  public static ModelCard readCard(Path directory) {
    Path cardFile = directory.resolve("card.json");
    if (!Files.isRegularFile(cardFile)) {
      throw new InvalidInputException("model", "no card.json in model folder " + directory);
    }
    try {
      return JSON.readValue(cardFile.toFile(), ModelCard.class);
    } catch (IOException e) {
      throw new InvalidInputException("model", "cannot read " + cardFile + ": " + e.getMessage());
    }
  }

  public static void writeCard(Path directory, ModelCard card) throws IOException {
    JSON.writerWithDefaultPrettyPrinter().writeValue(directory.resolve("card.json").toFile(), card);
  }

  /**
   * The folder's files, its card checked against the sentence-transformers files beside it where
   * present ({@link CardCheck#againstSentenceTransformers}).
   */
  public static ModelFiles load(Path directory) {
    ModelCard card = readCard(directory);
    CardCheck.againstSentenceTransformers(card, directory);
    try {
      byte[] onnx = Files.readAllBytes(directory.resolve(card.onnxFile()));
      byte[] tokenizer = Files.readAllBytes(directory.resolve(card.tokenizerFile()));
      String source =
          card.source().startsWith("hub:") ? card.source() : "dir:" + directory.toAbsolutePath();
      return new ModelFiles(
          card.withOrigin(source, card.revision(), card.resolvedSha()), onnx, tokenizer);
    } catch (IOException e) {
      throw new InvalidInputException(
          "model", "cannot read model files in " + directory + ": " + e.getMessage());
    }
  }
}
