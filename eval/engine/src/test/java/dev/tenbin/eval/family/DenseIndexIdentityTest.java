package dev.tenbin.eval.family;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenbin.eval.plan.CellIdentity;
import org.junit.jupiter.api.Test;

/** Which dense cells the change of the int8 HNSW graph gives an identity of their own. */
class DenseIndexIdentityTest {
  private static final CellIdentity MODEL = CellIdentity.empty().with("model", "m");

  @Test
  void hnswOverInt8CellsGetANewFingerprint() {
    for (String variant :
        new String[] {"hnsw_int8", "hnsw_int8_rescore", "truncate256_hnsw_int8_rescore"}) {
      assertThat(DenseFamily.withIndexIdentity(MODEL, variant).fingerprint())
          .as(variant)
          .isNotEqualTo(MODEL.fingerprint());
    }
  }

  @Test
  void everyOtherVariantKeepsItsFingerprint() {
    for (String variant :
        new String[] {"base", "int8", "int8_rescore", "hnsw", "hnsw_binary", "truncate256"}) {
      assertThat(DenseFamily.withIndexIdentity(MODEL, variant).fingerprint())
          .as(variant)
          .isEqualTo(MODEL.fingerprint());
    }
  }
}
