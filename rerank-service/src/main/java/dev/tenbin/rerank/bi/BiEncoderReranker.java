package dev.tenbin.rerank.bi;

import dev.tenbin.core.InvalidInputException;
import dev.tenbin.encoder.client.EncoderClient;
import java.util.List;

/**
 * A retrieval model acting as a reranker: the query and each candidate are encoded by the encoder
 * service (query and document prompts) and scored by cosine of the L2-normalised vectors, so a
 * bi-encoder can be judged on the same fixed candidate set as cross-encoders.
 */
public final class BiEncoderReranker {
  private static final int CACHE_LIMIT = 200_000;
  private final EncoderClient encoder;
  /**
   * Document vectors by (model, text): a candidate shared by many queries' sets is encoded once.
   * Bounded; cleared whole when full.
   */
  private final java.util.Map<String, float[]> documentVectors = new java.util.concurrent.ConcurrentHashMap<>();

  public BiEncoderReranker(EncoderClient encoder) {
    this.encoder = encoder;
  }

  /** Scores of each document, in input order; {@code model} is "dense:ID". */
  public float[] score(String model, String query, List<String> documents) {
    if (!model.startsWith("dense:")) {
      throw new InvalidInputException(
          "model_id", "bi-encoder rerankers are named dense:MODEL; sparse and multi-vector rerankers are not implemented yet");
    }
    String id = model.substring("dense:".length());
    float[] q = encoder.encodeDense(id, List.of(query), true, 0).getFirst();
    List<String> missing = new java.util.ArrayList<>();
    for (String document : documents) {
      if (!documentVectors.containsKey(id + "\u0000" + document) && !missing.contains(document)) {
        missing.add(document);
      }
    }
    if (!missing.isEmpty()) {
      if (documentVectors.size() + missing.size() > CACHE_LIMIT) {
        documentVectors.clear();
      }
      List<float[]> encoded = encoder.encodeDense(id, missing, false, 0);
      for (int i = 0; i < missing.size(); i++) {
        documentVectors.put(id + "\u0000" + missing.get(i), encoded.get(i));
      }
    }
    List<float[]> docs = new java.util.ArrayList<>(documents.size());
    for (String document : documents) {
      docs.add(documentVectors.get(id + "\u0000" + document));
    }
    float[] scores = new float[docs.size()];
    for (int i = 0; i < scores.length; i++) {
      float dot = 0;
      float[] d = docs.get(i);
      for (int j = 0; j < q.length; j++) {
        dot += q[j] * d[j];
      }
      scores[i] = dot;
    }
    return scores;
  }
}
