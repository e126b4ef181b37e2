package dev.tenbin.eval.plan;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.MapperFeature;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import dev.tenbin.eval.store.CellRecord;
import dev.tenbin.scoring.ScoringRevision;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

class CellFingerprintTest {
  private static final Map<String, Object> FIELDS =
      Map.of("dataset_sha", "abc", "top_k", 100, "model", "bm25");

  @Test
  void theScoringRevisionIsPartOfTheFingerprint() {
    assertThat(CellFingerprint.of(FIELDS))
        .isEqualTo(CellFingerprint.of(FIELDS, ScoringRevision.CURRENT));
    assertThat(CellFingerprint.of(FIELDS, ScoringRevision.CURRENT + 1))
        .isNotEqualTo(CellFingerprint.of(FIELDS));
    assertThat(CellFingerprint.of(FIELDS, ScoringRevision.CURRENT - 1))
        .isNotEqualTo(CellFingerprint.of(FIELDS));
  }

  @Test
  void cellsFingerprintedBeforeScoringRevisionsExistedDoNotMatch() throws Exception {
    // The formula before scoring revisions: the fields and the format version, keys sorted.
    Map<String, Object> before = new TreeMap<>(FIELDS);
    before.put("format_version", CellRecord.FORMAT_VERSION);
    byte[] canonical =
        JsonMapper.builder()
            .configure(SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS, true)
            .configure(MapperFeature.SORT_PROPERTIES_ALPHABETICALLY, true)
            .build()
            .writeValueAsBytes(before);
    String old =
        java.util.HexFormat.of()
            .formatHex(java.security.MessageDigest.getInstance("SHA-256").digest(canonical));
    assertThat(old).hasSize(64).isNotEqualTo(CellFingerprint.of(FIELDS));
  }
}
