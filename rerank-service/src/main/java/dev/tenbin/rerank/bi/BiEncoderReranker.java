package dev.tenbin.rerank.bi;

import dev.tenbin.client.encoder.DenseEncoding;
import dev.tenbin.client.encoder.EncoderClient;
import dev.tenbin.core.InvalidInputException;
import dev.tenbin.core.NotFoundException;
import dev.tenbin.proto.encoder.v1.GetModelInfoResponse;
import dev.tenbin.rerank.cross.ScoreHead;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A retrieval model acting as a reranker: the query and each candidate are encoded by the encoder
 * service (query and document prompts) and scored by cosine of the L2-normalised vectors, so a
 * bi-encoder can be judged on the same fixed candidate set as cross-encoders. Dense vectors come
 * through a {@link DenseEncoding}: the encoder itself, or the embedding cache of the job that
 * embeds this service, so vectors its retrieval already computed are not computed again.
 */
public final class BiEncoderReranker {
  private static final int CACHE_LIMIT = 200_000;
  private final EncoderClient encoder;
  private final DenseEncoding dense;

  /**
   * Document vectors by (model, text): a candidate shared by many queries' sets is encoded once.
   * Bounded; cleared whole when full.
   */
  private final Map<DocumentText, float[]> documentVectors = new ConcurrentHashMap<>();

  /**
   * A cache key that holds the candidate's text as it came, instead of a new string of the model
   * and the text joined for every lookup (a copy of each candidate's text, then its hash, three
   * times per candidate).
   */
  private record DocumentText(String model, String text) {}

  public BiEncoderReranker(EncoderClient encoder) {
    this(encoder, encoder.denseEncoding());
  }

  /** Dense vectors from {@code dense}, sparse and multi-vector ones from {@code encoder}. */
  public BiEncoderReranker(EncoderClient encoder, DenseEncoding dense) {
    this.encoder = encoder;
    this.dense = dense;
  }

  /** Whether a model id names a retrieval model acting as a reranker. */
  public static boolean handles(String model) {
    return model != null
        && (model.startsWith("dense:")
            || model.startsWith("sparse:")
            || model.startsWith("multivector:"));
  }

  /** The score head of a retrieval-model reranker id (dense:, sparse: or multivector:). */
  public static ScoreHead head(String model) {
    if (model.startsWith("sparse:")) {
      return ScoreHead.SPARSE_DOT;
    }
    if (model.startsWith("multivector:")) {
      return ScoreHead.MAX_SIM;
    }
    return ScoreHead.COSINE;
  }

  /**
   * The encoder service's description of the retrieval model a reranker id names. INVALID_ARGUMENT
   * naming {@code model_id} without a model name or when the model's output is of another family
   * ({@code dense:} of a sparse model); NOT_FOUND naming it when the encoder has no such model.
   */
  public GetModelInfoResponse describe(String model) {
    int colon = model.indexOf(':');
    String family = model.substring(0, colon);
    String id = model.substring(colon + 1);
    if (id.isBlank()) {
      throw new InvalidInputException(
          "model_id", "name the retrieval model: " + family + ":MODEL, got " + model);
    }
    GetModelInfoResponse info;
    try {
      info = encoder.modelInfo(id);
    } catch (StatusRuntimeException e) {
      if (e.getStatus().getCode() == Status.Code.NOT_FOUND) {
        throw new NotFoundException(
            "model_id", "the encoder service has no retrieval model '" + id + "' (" + model + ")");
      }
      throw e;
    }
    String kind =
        switch (info.getCard().getOutputKind()) {
          case OUTPUT_KIND_SPARSE -> "sparse";
          case OUTPUT_KIND_MULTIVECTOR -> "multivector";
          default -> "dense";
        };
    if (!kind.equals(family)) {
      throw new InvalidInputException(
          "model_id", id + " is a " + kind + " model: name it " + kind + ":" + id);
    }
    return info;
  }

  /**
   * Scores of each document, in input order: {@code dense:ID} by cosine, {@code sparse:ID} by the
   * dot product of learned sparse vectors, {@code multivector:ID} by MaxSim (sum over query tokens
   * of the largest dot product with any document token).
   */
  public float[] score(String model, String query, List<String> documents) {
    if (model.startsWith("sparse:")) {
      return sparse(model.substring("sparse:".length()), query, documents);
    }
    if (model.startsWith("multivector:")) {
      return maxSim(model.substring("multivector:".length()), query, documents);
    }
    if (!model.startsWith("dense:")) {
      throw new InvalidInputException(
          "model_id", "bi-encoder rerankers are named dense:, sparse: or multivector:MODEL");
    }
    String id = model.substring("dense:".length());
    float[] q = dense.encodeDense(id, List.of(query), true).getFirst();
    float[][] docs = new float[documents.size()][];
    Set<String> missing = new LinkedHashSet<>();
    for (int i = 0; i < docs.length; i++) {
      docs[i] = documentVectors.get(new DocumentText(id, documents.get(i)));
      if (docs[i] == null) {
        missing.add(documents.get(i));
      }
    }
    if (!missing.isEmpty()) {
      if (documentVectors.size() + missing.size() > CACHE_LIMIT) {
        documentVectors.clear();
      }
      List<String> texts = List.copyOf(missing);
      List<float[]> encoded = dense.encodeDense(id, texts, false);
      Map<String, float[]> fresh = new HashMap<>();
      for (int i = 0; i < texts.size(); i++) {
        documentVectors.put(new DocumentText(id, texts.get(i)), encoded.get(i));
        fresh.put(texts.get(i), encoded.get(i));
      }
      for (int i = 0; i < docs.length; i++) {
        if (docs[i] == null) {
          docs[i] = fresh.get(documents.get(i));
        }
      }
    }
    float[] scores = new float[docs.length];
    for (int i = 0; i < scores.length; i++) {
      float dot = 0;
      float[] d = docs[i];
      for (int j = 0; j < q.length; j++) {
        dot += q[j] * d[j];
      }
      scores[i] = dot;
    }
    return scores;
  }

  private float[] sparse(String id, String query, List<String> documents) {
    Map<Integer, Float> q = encoder.encodeSparse(id, List.of(query), true).getFirst();
    List<Map<Integer, Float>> docs = encoder.encodeSparse(id, documents, false);
    float[] scores = new float[docs.size()];
    for (int i = 0; i < scores.length; i++) {
      double dot = 0;
      for (var entry : q.entrySet()) {
        dot += entry.getValue() * docs.get(i).getOrDefault(entry.getKey(), 0f);
      }
      scores[i] = (float) dot;
    }
    return scores;
  }

  private float[] maxSim(String id, String query, List<String> documents) {
    float[][] q = encoder.encodeMultiVector(id, List.of(query), true).getFirst();
    List<float[][]> docs = encoder.encodeMultiVector(id, documents, false);
    float[] scores = new float[docs.size()];
    for (int i = 0; i < scores.length; i++) {
      double sum = 0;
      for (float[] queryToken : q) {
        float best = Float.NEGATIVE_INFINITY;
        for (float[] docToken : docs.get(i)) {
          float dot = 0;
          for (int d = 0; d < queryToken.length; d++) {
            dot += queryToken[d] * docToken[d];
          }
          best = Math.max(best, dot);
        }
        sum += best;
      }
      scores[i] = (float) sum;
    }
    return scores;
  }
}
