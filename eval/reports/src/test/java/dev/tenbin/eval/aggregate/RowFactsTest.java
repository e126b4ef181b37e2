package dev.tenbin.eval.aggregate;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenbin.eval.testing.SyntheticCells;
import java.util.List;
import org.junit.jupiter.api.Test;

class RowFactsTest {
  @Test
  void storedAndScannedBytesComeFromTheirOwnFacts() {
    RowFacts facts =
        RowFacts.of(
            List.of(
                SyntheticCells.cell("b", "t", "dense:m", "truncate256_hnsw_int8_rescore", 0.5)
                    .fact("dimension", 256)
                    .fact("bytes_per_vector", 256)
                    .fact("scanned_bytes_per_vector", 256)
                    .fact("stored_bytes_per_vector", 256 + 4 * 256)
                    .build()));
    assertThat(facts.bytesPerVector()).isEqualTo(1280.0);
    assertThat(facts.scannedBytesPerVector()).isEqualTo(256.0);
  }

  @Test
  void anOldCellsBytesPerVectorIsItsScannedFigureAndARescoreAddsItsFloatsToTheStoredOne() {
    RowFacts rescored =
        RowFacts.of(
            List.of(
                SyntheticCells.cell("b", "t", "dense:m", "int8_rescore", 0.5)
                    .fact("dimension", 384)
                    .fact("bytes_per_vector", 384)
                    .build()));
    assertThat(rescored.scannedBytesPerVector()).isEqualTo(384.0);
    assertThat(rescored.bytesPerVector()).isEqualTo(384.0 + 4 * 384);

    RowFacts binary =
        RowFacts.of(
            List.of(
                SyntheticCells.cell("b", "t", "dense:m", "binary", 0.5)
                    .fact("dimension", 384)
                    .fact("bytes_per_vector", 48)
                    .build()));
    assertThat(binary.scannedBytesPerVector()).isEqualTo(48.0);
    assertThat(binary.bytesPerVector()).isEqualTo(48.0);
  }

  @Test
  void aChunkedVariantsBytesPerDocumentCountEveryWindow() {
    RowFacts chunked =
        RowFacts.of(
            List.of(
                SyntheticCells.cell("b", "t", "dense:m", "maxp256s128", 0.5)
                    .fact("dimension", 384)
                    .fact("bytes_per_vector", 1536)
                    .fact("scanned_bytes_per_vector", 1536)
                    .fact("stored_bytes_per_vector", 1536)
                    .fact("vectors_per_document", 4.5)
                    .build()));
    assertThat(chunked.bytesPerVector()).isEqualTo(1536 * 4.5);
    assertThat(chunked.scannedBytesPerVector()).isEqualTo(1536 * 4.5);
  }

  @Test
  void theLatencyTailIsTheSumOfTheEncodeAndSearchTailsMeanOverCells() {
    RowFacts facts =
        RowFacts.of(
            List.of(
                SyntheticCells.cell("b", "t1", "dense:m", "base", 0.5)
                    .timing("query_encode_latency_us", 1_000)
                    .timing("search_latency_us", 100)
                    .timing("query_encode_latency_p99_us", 3_000)
                    .timing("search_latency_p99_us", 400)
                    .build(),
                SyntheticCells.cell("b", "t2", "dense:m", "base", 0.5)
                    .timing("query_encode_latency_us", 1_200)
                    .timing("search_latency_us", 100)
                    .timing("query_encode_latency_p99_us", 2_000)
                    .timing("search_latency_p99_us", 600)
                    .build()));
    assertThat(facts.latencyUs()).isEqualTo(1_200.0);
    assertThat(facts.latencyP99Us()).isEqualTo((3_400.0 + 2_600.0) / 2);
    assertThat(
            RowFacts.of(List.of(SyntheticCells.cell("b", "t", "bm25", "base", 0.5).build()))
                .latencyP99Us())
        .isNull();
  }

  @Test
  void theConcurrentLatencyIsTheMeanOverTheCellsThatMeasuredIt() {
    RowFacts facts =
        RowFacts.of(
            List.of(
                SyntheticCells.cell("b", "t1", "dense:m", "base", 0.5)
                    .concurrentLatency(4, 1_000, 3_000, 800)
                    .build(),
                SyntheticCells.cell("b", "t2", "dense:m", "base", 0.5)
                    .concurrentLatency(4, 2_000, 5_000, 400)
                    .build(),
                // stored before the concurrent measurement
                SyntheticCells.cell("b", "t3", "dense:m", "base", 0.5)
                    .timing("search_latency_us", 100)
                    .build()));

    assertThat(facts.concurrent()).isEqualTo(new RowFacts.Concurrent(4, 4, 1_500, 4_000, 600));
    assertThat(facts.concurrent().inFlight()).isEqualTo("4");
    assertThat(
            RowFacts.of(List.of(SyntheticCells.cell("b", "t", "bm25", "base", 0.5).build()))
                .concurrent())
        .isNull();
  }

  @Test
  void cellsMeasuredWithDifferentNumbersInFlightShowTheirRange() {
    RowFacts facts =
        RowFacts.of(
            List.of(
                SyntheticCells.cell("b", "t1", "bm25", "base", 0.5)
                    .concurrentLatency(4, 100, 300, 9_000)
                    .build(),
                // a task of 3 queries had them all in flight
                SyntheticCells.cell("b", "t2", "bm25", "base", 0.5)
                    .concurrentLatency(3, 100, 300, 7_000)
                    .build()));

    assertThat(facts.concurrent().inFlightMin()).isEqualTo(3);
    assertThat(facts.concurrent().inFlightMax()).isEqualTo(4);
    assertThat(facts.concurrent().inFlight()).isEqualTo("3–4");
  }
}
