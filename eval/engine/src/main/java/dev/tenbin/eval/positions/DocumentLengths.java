package dev.tenbin.eval.positions;

import dev.tenbin.core.InvalidInputException;
import dev.tenbin.model.tokenizer.LengthTokenizer;
import dev.tenbin.scoring.beir.BeirDataset;
import dev.tenbin.scoring.beir.CorpusDocument;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;

/**
 * Token counts of the documents that hold a span, by document id: {@code title + " " + text} (the
 * text alone when the title is empty, as documents are encoded), counted by one {@link
 * LengthTokenizer}. A task may borrow the lengths of another task with the same document ids (its
 * {@code length_reference}), e.g. a translation borrowing its source language's, so that a query
 * falls in the same bucket in every language.
 *
 * @param source the task (dataset name) whose documents were counted
 * @param tokens document id to token count
 */
public record DocumentLengths(String source, Map<String, Integer> tokens) {
  public DocumentLengths {
    tokens = Map.copyOf(tokens);
  }

  /**
   * Counts the documents of {@code reference} that {@code task}'s spans point at ({@code reference}
   * is {@code task} itself when it borrows nothing).
   *
   * @throws InvalidInputException naming {@code length_reference} when the reference lacks one
   */
  public static DocumentLengths count(
      BeirDataset task, BeirDataset reference, LengthTokenizer tokenizer) {
    java.util.Set<String> spanDocuments = new java.util.HashSet<>();
    for (String queryId : task.spans().queryIds()) {
      spanDocuments.add(task.spans().span(queryId).orElseThrow().documentId());
    }
    Map<String, CorpusDocument> documents = reference.corpus().documents(spanDocuments);
    Map<String, Integer> tokens = new HashMap<>();
    for (String queryId : task.spans().queryIds()) {
      String docId = task.spans().span(queryId).orElseThrow().documentId();
      if (tokens.containsKey(docId)) {
        continue;
      }
      CorpusDocument doc = documents.get(docId);
      if (doc == null) {
        throw new InvalidInputException(
            "length_reference",
            "the length reference "
                + reference.name()
                + " has no document '"
                + docId
                + "' (a span document of "
                + task.name()
                + "); it must hold the same document ids");
      }
      tokens.put(docId, tokenizer.count(doc.titleAndText()));
    }
    return new DocumentLengths(reference.name(), tokens);
  }

  /** The token count of {@code docId}. */
  public int of(String docId) {
    Integer count = tokens.get(docId);
    if (count == null) {
      throw new IllegalArgumentException("no length for document " + docId);
    }
    return count;
  }

  /** The documents counted. */
  public Set<String> documents() {
    return tokens.keySet();
  }
}
