package dev.tenbin.rerank.cross;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tenbin.core.InvalidInputException;
import dev.tenbin.core.NotFoundException;
import dev.tenbin.encoder.model.HubDownloader;
import dev.tenbin.encoder.model.LocalModelDirectory;
import dev.tenbin.encoder.model.ModelFiles;
import dev.tenbin.encoder.onnx.OnnxModel;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Cross-encoders by id, through the same model-card mechanism as the encoder: a folder
 * {@code models/<id>/} (card.json with the reranker fields, model.onnx, tokenizer.json) or
 * {@code hub:OWNER/NAME@REVISION} downloaded once at a pinned revision.
 */
public final class RerankerRegistry implements AutoCloseable {
  private static final ObjectMapper JSON =
      new ObjectMapper().configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false);

  private final Path modelsDirectory;
  private final HubDownloader hub;
  private final OnnxModel.RuntimeOptions runtime;
  private final int maxBatchTokens;
  private final Map<String, CrossEncoder> loaded = new ConcurrentHashMap<>();

  public RerankerRegistry(Path modelsDirectory, HubDownloader hub, OnnxModel.RuntimeOptions runtime, int maxBatchTokens) {
    this.modelsDirectory = modelsDirectory;
    this.hub = hub;
    this.runtime = runtime;
    this.maxBatchTokens = maxBatchTokens;
  }

  public CrossEncoder get(String id) {
    if (id == null || id.isBlank()) {
      throw new InvalidInputException("model_id", "model_id is required");
    }
    return loaded.computeIfAbsent(id, this::load);
  }

  private CrossEncoder load(String id) {
    Path folder;
    if (id.startsWith("hub:")) {
      folder = hub.fetch(HubDownloader.Reference.parse(id.substring(4)));
    } else {
      folder = modelsDirectory == null || id.contains("/") || id.contains("..") ? null : modelsDirectory.resolve(id);
      if (folder == null || !Files.isRegularFile(folder.resolve("card.json"))) {
        throw new NotFoundException(
            "model_id",
            "unknown reranker '" + id + "': put model.onnx, tokenizer.json and card.json in "
                + modelsDirectory + "/" + id + ", name a hub:OWNER/NAME@REVISION, or use dense:MODEL,"
                + " sparse:MODEL or multivector:MODEL");
      }
    }
    ModelFiles files = LocalModelDirectory.load(folder);
    try {
      RerankerCard card = JSON.readValue(folder.resolve("card.json").toFile(), RerankerCard.class);
      return new CrossEncoder(card, files, runtime, maxBatchTokens);
    } catch (IOException e) {
      throw new InvalidInputException("model_id", "cannot read the reranker card of " + id + ": " + e.getMessage());
    }
  }

  @Override
  public void close() {
    loaded.values().forEach(CrossEncoder::close);
  }
}
