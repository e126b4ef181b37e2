package dev.tenbin.encoder.light;

import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.annotation.JsonNaming;

/**
 * The manifest of a LightRetriever token-embedding cache (format version 1): which model and prompt
 * produced the [V, H] matrix, in which dtype, and how far building has got.
 */
@JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
public record CacheManifest(
    int formatVersion,
    String modelId,
    String modelRevision,
    String prompt,
    int vocabularySize,
    int dimension,
    String dtype,
    int chunkRows,
    boolean complete) {
  public static final int FORMAT_VERSION = 1;

  /** Whether the cache was built for this card: its model, revision, query prompt and width. */
  public boolean describes(dev.tenbin.encoder.model.ModelCard card) {
    return modelId.equals(card.id())
        && modelRevision.equals(card.revision())
        && prompt.equals(card.queryPrompt())
        && dimension == card.dimension();
  }

  public int chunks() {
    return (vocabularySize + chunkRows - 1) / chunkRows;
  }

  public CacheManifest completed() {
    return new CacheManifest(
        formatVersion,
        modelId,
        modelRevision,
        prompt,
        vocabularySize,
        dimension,
        dtype,
        chunkRows,
        true);
  }
}
