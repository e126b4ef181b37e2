package dev.tenbin.rerank.cross;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.annotation.JsonNaming;

/**
 * What Tenbin needs to know to run a reranker, read from the {@code card.json} beside its files.
 *
 * @param id the name requests use
 * @param head the score head
 * @param maxLength tokens kept per (query, document) pair
 * @param promptTemplate for YES_NO heads: text with {query} and {document}; empty for pair models
 * @param yesToken the "yes" token of YES_NO heads
 * @param noToken the "no" token of YES_NO heads
 */
@JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
@JsonIgnoreProperties(ignoreUnknown = true)
public record RerankerCard(
    String id, ScoreHead head, int maxLength, String promptTemplate, String yesToken, String noToken) {
  public RerankerCard {
    head = head == null ? ScoreHead.SIGMOID : head;
    maxLength = maxLength <= 0 ? 512 : maxLength;
    promptTemplate = promptTemplate == null ? "" : promptTemplate;
    yesToken = yesToken == null ? "yes" : yesToken;
    noToken = noToken == null ? "no" : noToken;
  }
}
