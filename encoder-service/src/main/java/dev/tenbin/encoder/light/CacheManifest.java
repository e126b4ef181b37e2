package dev.tenbin.encoder.light;

import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.annotation.JsonNaming;

/**
 * The manifest of a LightRetriever token-embedding cache: which model and prompt produced the [V,
 * H] matrix, at which width (the card's dimension, or a Matryoshka width whose rows are each
 * truncated and normalised per token), in which {@link RowFormat}, and how far building has got.
 *
 * <p>Format 2 (memory-mapped chunk files of fp32, fp16 or int8-with-scale rows) replaced format 1;
 * a cache in any other format is rebuilt, never read.
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
  public static final int FORMAT_VERSION = 2;

  /**
   * Whether the cache was built for this card at this width (the model's, or one of its Matryoshka
   * widths): its model, revision, query prompt and width.
   */
  public boolean describes(dev.tenbin.model.card.ModelCard card, int width) {
    return modelId.equals(card.id())
        && modelRevision.equals(card.revision())
        && prompt.equals(card.queryPrompt())
        && dimension == width;
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
