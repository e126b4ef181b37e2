package dev.tenbin.eval.provenance;

import dev.tenbin.client.encoder.EncoderClient;
import dev.tenbin.client.rerank.RerankClient;
import dev.tenbin.proto.common.v1.ScoredDocument;
import dev.tenbin.proto.encoder.v1.OutputKind;
import dev.tenbin.proto.rerank.v1.Candidate;
import dev.tenbin.proto.rerank.v1.RerankRequest;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.StringJoiner;
import java.util.TreeMap;

/**
 * Probe checksums: a fixed, versioned set of texts ({@link #TEXTS}, set {@link #SET}) encoded (or,
 * for a cross-encoder, scored against {@link #QUERY}) once per model per job, before its cells run.
 * Every cell of the model stores the outputs' SHA-256 and the first values ({@link
 * Checksum#versions}), so two runs, on two machines or providers, can be checked for the same
 * numerical condition: equal hashes mean bit-identical outputs; the first values show how far apart
 * they are when not.
 *
 * <p>The texts are documents (the card's document prompt applies): English prose, a question,
 * Chinese, German with diacritics and symbols, and code with digits, so that tokenizers'
 * normalizers and several vocabulary regions take part. Changing them is a new {@link #SET}.
 *
 * <p>Bytes hashed: for each output in text order, its length (int32) and then its values as
 * little-endian IEEE-754 FP32; sparse outputs as (index int32, weight FP32) pairs by ascending
 * index; multi-vector outputs row by row; scores as one FP32 each.
 */
public final class Probes {
  /** The name of the probe set; stored with the checksum. */
  public static final String SET = "tenbin-probes-v1";

  /** The probe texts, encoded as documents. */
  public static final List<String> TEXTS =
      List.of(
          "The quick brown fox jumps over the lazy dog.",
          "What is the boiling point of water at sea level?",
          "北京是中华人民共和国的首都，也是全国的政治和文化中心。",
          "Größenordnung: naïve Cafés zahlen 3,14159 × 10³ € pro Jahr.",
          "def add(a, b):\n    return a + b  # 0 1 2 3 4 5 6 7 8 9");

  /** The query a cross-encoder scores the probe texts against. */
  public static final String QUERY = "What is the boiling point of water?";

  /** How many leading values {@link Checksum#head} keeps. */
  public static final int HEAD = 8;

  private Probes() {}

  /**
   * The checksum of the probe outputs.
   *
   * @param sha256 SHA-256 (hex) over every output's values
   * @param head the first values of the first output (for scores: the first scores),
   *     comma-separated in Java's shortest round-tripping form
   */
  public record Checksum(String sha256, String head) {
    /**
     * No probes taken: for a plan whose cells are all stored already, which stores none. Its
     * versions are empty.
     */
    public static final Checksum NOT_TAKEN = new Checksum("", "");

    /**
     * The names stored with a cell's versions: probe_set, probe_sha256, probe_head (none for {@link
     * #NOT_TAKEN}).
     */
    public Map<String, String> versions() {
      if (this.equals(NOT_TAKEN)) {
        return Map.of();
      }
      Map<String, String> versions = new LinkedHashMap<>();
      versions.put("probe_set", SET);
      versions.put("probe_sha256", sha256);
      versions.put("probe_head", head);
      return versions;
    }
  }

  /** Encodes the probe texts with an encoder model of the given output kind. */
  public static Checksum encode(EncoderClient client, String modelId, OutputKind kind) {
    return switch (kind) {
      case OUTPUT_KIND_SPARSE -> sparse(client.encodeSparse(modelId, TEXTS, false));
      case OUTPUT_KIND_MULTIVECTOR -> multiVector(client.encodeMultiVector(modelId, TEXTS, false));
      default -> dense(client.encodeDense(modelId, TEXTS, false, 0));
    };
  }

  /** Scores the probe texts against {@link #QUERY} with a cross-encoder. */
  public static Checksum rerank(RerankClient rerank, String rerankerId) {
    RerankRequest.Builder request =
        RerankRequest.newBuilder().setModelId(rerankerId).setQuery(QUERY);
    for (int i = 0; i < TEXTS.size(); i++) {
      request.addCandidates(Candidate.newBuilder().setDocId("p" + i).setText(TEXTS.get(i)));
    }
    Map<Integer, Float> byProbe = new TreeMap<>();
    for (ScoredDocument doc : rerank.rerank(request.build()).getDocumentsList()) {
      byProbe.put(Integer.parseInt(doc.getDocId().substring(1)), doc.getScore());
    }
    float[] scores = new float[byProbe.size()];
    int i = 0;
    for (float score : byProbe.values()) {
      scores[i++] = score;
    }
    return scores(scores);
  }

  /** The checksum of dense outputs, in text order. */
  public static Checksum dense(List<float[]> vectors) {
    Hasher hasher = new Hasher();
    for (float[] vector : vectors) {
      hasher.values(vector);
    }
    return hasher.checksum(vectors.isEmpty() ? new float[0] : vectors.getFirst());
  }

  /** The checksum of sparse outputs (index to weight), in text order. */
  public static Checksum sparse(List<Map<Integer, Float>> vectors) {
    Hasher hasher = new Hasher();
    List<Float> firstWeights = new ArrayList<>();
    for (int v = 0; v < vectors.size(); v++) {
      Map<Integer, Float> sorted = new TreeMap<>(vectors.get(v));
      hasher.length(sorted.size());
      for (Map.Entry<Integer, Float> entry : sorted.entrySet()) {
        hasher.index(entry.getKey());
        hasher.value(entry.getValue());
        if (v == 0) {
          firstWeights.add(entry.getValue());
        }
      }
    }
    float[] head = new float[firstWeights.size()];
    for (int i = 0; i < head.length; i++) {
      head[i] = firstWeights.get(i);
    }
    return hasher.checksum(head);
  }

  /** The checksum of per-token outputs, in text order, row by row. */
  public static Checksum multiVector(List<float[][]> outputs) {
    Hasher hasher = new Hasher();
    for (float[][] rows : outputs) {
      hasher.length(rows.length);
      for (float[] row : rows) {
        hasher.values(row);
      }
    }
    return hasher.checksum(
        outputs.isEmpty() || outputs.getFirst().length == 0 ? new float[0] : outputs.getFirst()[0]);
  }

  /** The checksum of scores, in probe order. */
  public static Checksum scores(float[] scores) {
    Hasher hasher = new Hasher();
    hasher.values(scores);
    return hasher.checksum(scores);
  }

  /** SHA-256 over lengths, indices and FP32 values, little-endian. */
  private static final class Hasher {
    private final MessageDigest sha;
    private final ByteBuffer word = ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN);

    Hasher() {
      try {
        sha = MessageDigest.getInstance("SHA-256");
      } catch (NoSuchAlgorithmException e) {
        throw new IllegalStateException(e);
      }
    }

    void values(float[] values) {
      length(values.length);
      for (float value : values) {
        value(value);
      }
    }

    void length(int length) {
      index(length);
    }

    void index(int index) {
      sha.update(word.clear().putInt(index).array());
    }

    void value(float value) {
      sha.update(word.clear().putInt(Float.floatToRawIntBits(value)).array());
    }

    Checksum checksum(float[] first) {
      StringJoiner head = new StringJoiner(",");
      for (int i = 0; i < Math.min(HEAD, first.length); i++) {
        head.add(Float.toString(first[i]));
      }
      return new Checksum(HexFormat.of().formatHex(sha.digest()), head.toString());
    }
  }
}
