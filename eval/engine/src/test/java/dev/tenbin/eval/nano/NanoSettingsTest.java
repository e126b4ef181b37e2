package dev.tenbin.eval.nano;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tenbin.core.InvalidInputException;
import dev.tenbin.eval.nano.NanoSettings.HardNegatives;
import java.util.List;
import org.junit.jupiter.api.Test;

class NanoSettingsTest {
  private static NanoSettings with(int queries, int documents, List<MinerSpec> miners, int depth) {
    return new NanoSettings(queries, documents, 1, HardNegatives.AUTO, miners, depth);
  }

  @Test
  void capsOutsideTheProtocolAreRejectedNamingTheFlag() {
    List<MinerSpec> miners = NanoSettings.DEFAULT_MINERS;
    assertThatThrownBy(() -> with(0, 100, miners, 50))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("--max-queries must be within 1..200, got 0");
    assertThatThrownBy(() -> with(201, 100, miners, 50))
        .hasMessageContaining("--max-queries must be within 1..200, got 201");
    assertThatThrownBy(() -> with(10, 0, miners, 50))
        .hasMessageContaining("--max-documents must be within 1..10000, got 0");
    assertThatThrownBy(() -> with(10, 10_001, miners, 50))
        .hasMessageContaining("--max-documents must be within 1..10000, got 10001");
    assertThatThrownBy(() -> with(10, 100, miners, 0))
        .hasMessageContaining("--mining-depth must be within 1..1000, got 0");
  }

  @Test
  void minersMustBeKnownDistinctAndPresentWhenNegativesAreMined() {
    assertThatThrownBy(() -> MinerSpec.parse("sparse:splade"))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("unknown miner 'sparse:splade': expected bm25 or dense:MODEL");
    assertThatThrownBy(() -> MinerSpec.parse("dense:"))
        .hasMessageContaining("unknown miner 'dense:'");
    assertThatThrownBy(() -> with(10, 100, List.of(), 50))
        .hasMessageContaining("--miners must name at least one miner");
    assertThatThrownBy(() -> with(10, 100, List.of(MinerSpec.BM25, MinerSpec.BM25), 50))
        .hasMessageContaining("--miners names a miner twice: bm25,bm25");
    assertThatThrownBy(() -> HardNegatives.parse("some"))
        .hasMessageContaining("--hard-negatives must be auto, judged, mined or both, got 'some'");
  }
}
