package dev.tenbin.eval.plan;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.tenbin.core.Sha256;
import dev.tenbin.eval.store.CellRecord;
import dev.tenbin.scoring.ScoringRevision;
import java.util.Map;
import java.util.TreeMap;

/**
 * The identity of a cell's result: SHA-256 (hex) over a canonical JSON object (keys sorted) of
 * everything that determines it — the cell key, the dataset's SHA, the model's id, revision,
 * resolved hub SHA, dtype, prompts, maximum length and output width (so cells computed when a card
 * cut a wider output are recomputed for the full one), the variant and mode, the similarity and
 * depth, the library versions that decide scores (Lucene for BM25, ONNX Runtime and the tokenizers
 * for models), the candidate set a reranker reads, the result format version and the {@link
 * ScoringRevision} of the ranking and metric code. Timings and the Tenbin build are deliberately
 * not part of it: two runs that must give the same rankings share a fingerprint.
 */
public final class CellFingerprint {
  private static final ObjectMapper CANONICAL =
      new ObjectMapper()
          .configure(SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS, true)
          .configure(
              com.fasterxml.jackson.databind.MapperFeature.SORT_PROPERTIES_ALPHABETICALLY, true);

  private CellFingerprint() {}

  /** The fingerprint of the given identifying fields, at the current {@link ScoringRevision}. */
  public static String of(Map<String, ?> fields) {
    return of(fields, ScoringRevision.CURRENT);
  }

  /** The fingerprint the given fields have (or had) under another scoring revision. */
  static String of(Map<String, ?> fields, int scoringRevision) {
    Map<String, Object> sorted = new TreeMap<>(fields);
    sorted.put("format_version", CellRecord.FORMAT_VERSION);
    sorted.put("scoring_revision", scoringRevision);
    try {
      byte[] canonical = CANONICAL.writeValueAsBytes(sorted);
      return Sha256.hex(canonical);
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }
}
