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
 * @param revision the model's version as its publisher names it (a commit, a date); "" when
 *     unknown. Part of every evaluation cell's identity: change it when the files change
 * @param resolvedSha the commit SHA a hub download resolved to; "" for local folders
 */
@JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
@JsonIgnoreProperties(ignoreUnknown = true)
public record RerankerCard(
    String id,
    ScoreHead head,
    int maxLength,
    String promptTemplate,
    String yesToken,
    String noToken,
    String revision,
    String resolvedSha) {
  public RerankerCard {
    head = head == null ? ScoreHead.SIGMOID : head;
    maxLength = maxLength <= 0 ? 512 : maxLength;
    promptTemplate = promptTemplate == null ? "" : promptTemplate;
    yesToken = yesToken == null ? "yes" : yesToken;
    noToken = noToken == null ? "no" : noToken;
    revision = revision == null ? "" : revision;
    resolvedSha = resolvedSha == null ? "" : resolvedSha;
  }
}
