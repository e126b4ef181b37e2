package dev.tenbin.bench.compare;

import static dev.tenbin.bench.compare.SameHits.hit;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tenbin.proto.common.v1.ScoredDocument;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The comparison made before timing: same ids, same order, bit-identical scores. */
class SameHitsTest {
  private final List<ScoredDocument> inProcess = List.of(hit("a", 2f), hit("b", 1f));

  @Test
  void theSameHitsPassWhateverTheirRanks() {
    assertThatCode(
            () ->
                SameHits.require(
                    0,
                    "gRPC",
                    inProcess,
                    List.of(hit("a", 2f).toBuilder().setRank(1).build(), hit("b", 1f))))
        .doesNotThrowAnyException();
  }

  @Test
  void anotherOrderIsRefusedNamingTheQueryThePathAndTheFirstDifference() {
    assertThatThrownBy(
            () ->
                SameHits.require(
                    3, "gRPC (service process)", inProcess, List.of(hit("b", 2f), hit("a", 1f))))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("query 3: the in-process and gRPC (service process) paths")
        .hasMessageContaining("first at rank 1: a 2.0 in-process, b 2.0 over gRPC");
  }

  @Test
  void aScoreOneUlpApartOrAMissingHitIsRefused() {
    assertThatThrownBy(
            () ->
                SameHits.require(
                    0, "gRPC", inProcess, List.of(hit("a", Math.nextUp(2f)), hit("b", 1f))))
        .hasMessageContaining("different hits (2 and 2, first at rank 1");
    assertThatThrownBy(() -> SameHits.require(0, "gRPC", inProcess, List.of(hit("a", 2f))))
        .hasMessageContaining("different hits (2 and 1)");
  }
}
