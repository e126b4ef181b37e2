package dev.tenbin.integration.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tenbin.core.PreconditionException;
import dev.tenbin.eval.aggregate.Leaderboard;
import dev.tenbin.eval.aggregate.LeaderboardOptions;
import dev.tenbin.eval.plan.CellIdentity;
import dev.tenbin.eval.result.RankingMode;
import dev.tenbin.eval.store.CellKey;
import dev.tenbin.eval.store.CellRecord;
import dev.tenbin.eval.store.QueryBootstrap;
import dev.tenbin.eval.store.ResultStore;
import dev.tenbin.eval.testing.CellKeys;
import dev.tenbin.eval.testing.EvaluatedCells;
import dev.tenbin.scoring.stats.Interval;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Cells stored while the cell key was nine strings (the files under {@code stored-cells-v1/} were
 * written by that code, with {@link EvaluatedCells}) still load with the same typed key, write back
 * to the same bytes, and hash to the same fingerprints; a mode no Tenbin writes is refused as
 * damage.
 */
class StoredCellFixtureTest {
  private static final String RETRIEVAL =
      "422d1924d12837a23745a19e5f76215517d809e5f12b9f00835a4ca59fb65809";
  private static final String RERANK =
      "b12ef5094cc102a6cae082ae88a1c8ba8d2090cd8b909f513fdd1ae4b7401500";

  private static final CellKey RETRIEVAL_KEY =
      CellKeys.key()
          .benchmark("NanoBEIR-en")
          .task("NanoSciFact")
          .domain("science")
          .system("dense", "bge-small-en-v1.5")
          .variant("int8")
          .build();
  private static final CellKey RERANK_KEY =
      CellKeys.key()
          .benchmark("NanoBEIR-en")
          .task("NanoSciFact")
          .domain("science")
          .system("rerank-cross", "cross/enc")
          .variant("candidates_hybrid")
          .mode(RankingMode.RERANK_WITHOUT_SAFEGUARD)
          .build();

  @TempDir Path job;

  @Test
  void oldCellsLoadWithTheSameTypedKey() throws IOException {
    ResultStore store = storeWith(RETRIEVAL, RERANK);

    assertThat(store.read(RETRIEVAL).orElseThrow().key()).isEqualTo(RETRIEVAL_KEY);
    assertThat(store.read(RERANK).orElseThrow().key()).isEqualTo(RERANK_KEY);
    assertThat(store.readAll())
        .extracting(cell -> cell.key().label())
        .containsExactly(
            "dense:bge-small-en-v1.5/int8 on NanoBEIR-en/NanoSciFact (retrieval)",
            "rerank-cross:cross/enc/candidates_hybrid on NanoBEIR-en/NanoSciFact"
                + " (rerank_without_safeguard)");
  }

  @Test
  void oldCellsWriteBackToTheSameBytesWithTheirSystemNamed() throws IOException {
    ResultStore store = storeWith(RETRIEVAL, RERANK);
    for (String fingerprint : List.of(RETRIEVAL, RERANK)) {
      CellRecord cell = store.read(fingerprint).orElseThrow();
      String system = cell.key().system().name();

      // Cells written before keys carried their system's name gain it, and nothing else changes.
      assertThat(new String(ResultStore.JSON.writeValueAsBytes(cell), StandardCharsets.UTF_8))
          .isEqualTo(
              new String(fixture(fingerprint), StandardCharsets.UTF_8)
                  .replaceFirst("(\"mode\":\"[a-z_]+\")\\}", "$1,\"system\":\"" + system + "\"}"));
      // A cell written now reads back and writes again to the very same bytes.
      byte[] written = ResultStore.JSON.writeValueAsBytes(cell);
      assertThat(
              ResultStore.JSON.writeValueAsBytes(
                  ResultStore.JSON.readValue(written, CellRecord.class)))
          .isEqualTo(written);
    }
  }

  @Test
  void typedKeysHashToTheFingerprintsOfTheStringKeys() {
    // computed by the string-keyed CellKey: CellIdentity.empty().with("key", key).with("top_k",
    // 100)
    assertThat(CellIdentity.empty().with("key", RETRIEVAL_KEY).with("top_k", 100).fingerprint())
        .isEqualTo("f6eed0602eedd48ef58862b649b0ad82d986e9ae502e570005241ecd12247c41");
    assertThat(CellIdentity.empty().with("key", RERANK_KEY).with("top_k", 100).fingerprint())
        .isEqualTo("dc945d61d7b0dcb4a7aa50034b98c4282b6da024ddffc7089f4721c2740ebb76");
  }

  @Test
  void oldCellsWithoutPrecisionOrQueryIntervalsGetTheirIntervalsComputedOnRead()
      throws IOException {
    ResultStore store = storeWith(RETRIEVAL, RERANK);
    CellRecord old = store.read(RETRIEVAL).orElseThrow();
    assertThat(old.metrics()).doesNotContainKey("precision@10");
    assertThat(old.diagnostics()).doesNotContainKey(QueryBootstrap.KEY);

    Map<String, Interval> intervals = QueryBootstrap.of(old);

    assertThat(intervals).containsOnlyKeys(old.metrics().keySet());
    intervals.forEach(
        (metric, interval) ->
            assertThat(interval.contains(old.metrics().get(metric))).as(metric).isTrue());
    // one task: the leaderboard shows those intervals, × 100
    Leaderboard board = Leaderboard.of(store.readAll(), LeaderboardOptions.defaults());
    assertThat(board.intervalSource()).isEqualTo(Leaderboard.IntervalSource.QUERIES);
    assertThat(board.ranked())
        .hasSize(2)
        .allSatisfy(row -> assertThat(row.queryInterval()).isNotNull());
    // a precision@10 leaderboard leaves the old cells out rather than failing on them
    assertThat(
            Leaderboard.of(
                    store.readAll(), LeaderboardOptions.defaults().withMetric("precision@10"))
                .rows())
        .isEmpty();
  }

  @Test
  void aStoredCellWithAnUnknownModeIsRefusedAsDamagedNamingItsFile() throws IOException {
    Path cells = Files.createDirectories(job.resolve("cells"));
    String json =
        new String(fixture(RETRIEVAL), StandardCharsets.UTF_8)
            .replace("\"mode\":\"retrieval\"", "\"mode\":\"candidates\"");
    assertThat(json).contains("\"mode\":\"candidates\"");
    Files.writeString(cells.resolve(RETRIEVAL + ".json"), json);
    ResultStore store = ResultStore.existing(job, "--job");

    assertThatThrownBy(() -> store.read(RETRIEVAL))
        .isInstanceOf(PreconditionException.class)
        .hasMessageContaining(RETRIEVAL + ".json")
        .hasMessageContaining("damaged");
    assertThatThrownBy(store::readAll).isInstanceOf(PreconditionException.class);
  }

  private ResultStore storeWith(String... fingerprints) throws IOException {
    Path cells = Files.createDirectories(job.resolve("cells"));
    for (String fingerprint : fingerprints) {
      Files.write(cells.resolve(fingerprint + ".json"), fixture(fingerprint));
    }
    return ResultStore.existing(job, "--job");
  }

  private static byte[] fixture(String fingerprint) throws IOException {
    try (InputStream in =
        StoredCellFixtureTest.class.getResourceAsStream(
            "stored-cells-v1/" + fingerprint + ".json")) {
      assertThat(in).as("fixture %s", fingerprint).isNotNull();
      return in.readAllBytes();
    }
  }
}
