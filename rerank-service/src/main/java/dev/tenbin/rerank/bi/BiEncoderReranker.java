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
  private final EncoderClient encoder;

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
    List<float[]> docs = encoder.encodeDense(id, documents, false, 0);
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
