package dev.tenbin.integration.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tenbin.core.PreconditionException;
import dev.tenbin.eval.aggregate.Leaderboard;
import dev.tenbin.eval.aggregate.LeaderboardOptions;
import dev.tenbin.eval.leaderboard.Leaderboards;
import dev.tenbin.eval.store.CellRecord;
import dev.tenbin.eval.store.ResultStore;
import dev.tenbin.eval.store.ResultStore.Rankings;
import dev.tenbin.eval.store.StoredDoc;
import dev.tenbin.eval.store.StoredQuery;
import dev.tenbin.eval.testing.EvaluatedCells;
import dev.tenbin.scoring.metrics.ScoredDoc;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Columnar cells: a JSON header beside a Parquet file of per-query metrics and rankings, read back
 * exactly; crash-safe; legacy gzip JSON cells still read, and converted keeping their originals.
 */
class ColumnarStoreTest {
  @TempDir Path tmp;

  private final CellRecord dense =
      EvaluatedCells.cell(
          EvaluatedCells.key("NanoSciFact", "dense", "m", "int8"),
          EvaluatedCells.QRELS,
          EvaluatedCells.run(0));
  private final CellRecord bm25 =
      EvaluatedCells.cell(
          EvaluatedCells.key("NanoSciFact", "bm25", "bm25", "base"),
          EvaluatedCells.QRELS,
          EvaluatedCells.run(1));
  private final CellRecord other =
      EvaluatedCells.cell(
          EvaluatedCells.key("NanoFiQA", "dense", "m", "int8"),
          EvaluatedCells.QRELS,
          EvaluatedCells.run(2));

  @Test
  void aCellIsStoredAsAHeaderBesideAParquetFileAndReadsBackBitForBit() throws IOException {
    ResultStore store = ResultStore.open(tmp);
    CellRecord awkward = awkwardCell();
    store.append(awkward);

    Path header = store.storedFile(awkward.fingerprint());
    assertThat(header.getFileName().toString()).isEqualTo(awkward.fingerprint() + ".cell.json");
    assertThat(store.columnarFile(awkward.fingerprint()).orElseThrow())
        .hasFileName(awkward.fingerprint() + ".queries.parquet")
        .isRegularFile();
    assertThat(Files.readString(header))
        .contains("\"columnar\"")
        .doesNotContain("doc_id")
        .doesNotContain("\"queries\" : [");

    CellRecord back = store.read(awkward.fingerprint()).orElseThrow();
    assertThat(back).isEqualTo(awkward);
    for (int q = 0; q < awkward.queries().size(); q++) {
      List<StoredDoc> written = awkward.queries().get(q).docs();
      List<StoredDoc> read = back.queries().get(q).docs();
      for (int d = 0; d < written.size(); d++) {
        assertThat(Double.doubleToRawLongBits(read.get(d).score()))
            .isEqualTo(Double.doubleToRawLongBits(written.get(d).score()));
      }
    }
    assertThat(store.readAll()).containsExactly(awkward);
  }

  @Test
  void readersOfMetricsGetEveryQueryAndItsMetricsWithoutTheRankings() {
    ResultStore store = ResultStore.open(tmp);
    store.append(dense);

    CellRecord light = store.readAll(Rankings.LEFT_IN_FILE).getFirst();

    assertThat(light.metrics()).isEqualTo(dense.metrics());
    assertThat(light.queries()).extracting(StoredQuery::queryId).containsExactly("q1", "q2");
    assertThat(light.queries())
        .extracting(StoredQuery::metrics)
        .containsExactlyElementsOf(dense.queries().stream().map(StoredQuery::metrics).toList());
    assertThat(light.queries()).allSatisfy(query -> assertThat(query.docs()).isEmpty());
  }

  @Test
  void theSameCellGivesTheSameBytes() throws IOException {
    ResultStore first = ResultStore.open(tmp.resolve("a"));
    ResultStore second = ResultStore.open(tmp.resolve("b"));
    first.append(dense);
    second.append(dense);

    assertThat(Files.readAllBytes(first.columnarFile(dense.fingerprint()).orElseThrow()))
        .isEqualTo(Files.readAllBytes(second.columnarFile(dense.fingerprint()).orElseThrow()));
    assertThat(Files.readAllBytes(first.storedFile(dense.fingerprint())))
        .isEqualTo(Files.readAllBytes(second.storedFile(dense.fingerprint())));
  }

  @Test
  void aHeaderWhoseParquetFileIsMissingIsAbsentForTheJobAndRefusedNamingTheFile()
      throws IOException {
    ResultStore store = ResultStore.open(tmp);
    store.append(dense);
    Path parquet = store.columnarFile(dense.fingerprint()).orElseThrow();
    Files.delete(parquet);

    assertThat(store.contains(dense.fingerprint())).isFalse();
    assertThatThrownBy(() -> store.read(dense.fingerprint()))
        .isInstanceOf(PreconditionException.class)
        .hasMessageContaining(parquet.toString())
        .hasMessageContaining("missing")
        .hasMessageContaining("recompute");
    assertThatThrownBy(store::readAll).isInstanceOf(PreconditionException.class);

    // the job recomputes the cell: both files are written again
    assertThat(store.append(dense)).isTrue();
    assertThat(store.contains(dense.fingerprint())).isTrue();
    assertThat(store.read(dense.fingerprint()).orElseThrow()).isEqualTo(dense);
  }

  @Test
  void aTruncatedParquetFileIsAbsentForTheJobAndRefusedNamingTheFile() throws IOException {
    ResultStore store = ResultStore.open(tmp);
    store.append(dense);
    Path parquet = store.columnarFile(dense.fingerprint()).orElseThrow();
    byte[] bytes = Files.readAllBytes(parquet);
    Files.write(parquet, java.util.Arrays.copyOf(bytes, bytes.length / 2));

    assertThat(store.contains(dense.fingerprint())).isFalse();
    assertThatThrownBy(() -> store.readAll(Rankings.LEFT_IN_FILE))
        .isInstanceOf(PreconditionException.class)
        .hasMessageContaining(parquet.toString())
        .hasMessageContaining("damaged");

    assertThat(store.append(dense)).isTrue();
    assertThat(store.readAll()).containsExactly(dense);
  }

  @Test
  void aParquetFileOfAnotherCellIsRefusedNotReadAsThisOne() throws IOException {
    ResultStore store = ResultStore.open(tmp);
    CellRecord wider = awkwardCell();
    store.append(dense);
    store.append(wider);
    Path parquet = store.columnarFile(dense.fingerprint()).orElseThrow();
    Files.copy(
        store.columnarFile(wider.fingerprint()).orElseThrow(),
        parquet,
        java.nio.file.StandardCopyOption.REPLACE_EXISTING);

    assertThatThrownBy(() -> store.read(dense.fingerprint()))
        .isInstanceOf(PreconditionException.class)
        .hasMessageContaining(parquet.toString())
        .hasMessageContaining("header counts");
  }

  @Test
  void aDamagedHeaderIsRefusedNamingIt() throws IOException {
    ResultStore store = ResultStore.open(tmp);
    store.append(dense);
    Path header = store.storedFile(dense.fingerprint());
    String json = Files.readString(header);
    Files.writeString(header, json.substring(0, json.length() / 2));

    assertThatThrownBy(() -> store.read(dense.fingerprint()))
        .isInstanceOf(PreconditionException.class)
        .hasMessageContaining(header.toString())
        .hasMessageContaining("damaged");
  }

  @Test
  void aTornTemporaryFileIsIgnored() throws IOException {
    ResultStore store = ResultStore.open(tmp);
    Files.write(store.directory().resolve("." + dense.fingerprint() + ".x.tmp"), new byte[] {'P'});
    assertThat(store.readAll()).isEmpty();
    assertThat(store.contains(dense.fingerprint())).isFalse();
  }

  @Test
  void legacyCellsAreReadAndConvertedKeepingTheirOriginals() throws IOException {
    ResultStore store = ResultStore.open(tmp);
    Path original = writeLegacy(store, dense);
    byte[] originalBytes = Files.readAllBytes(original);
    store.append(bm25);
    assertThat(store.readAll()).containsExactlyElementsOf(sorted(dense, bm25));
    assertThat(store.columnarFile(dense.fingerprint())).isEmpty();

    assertThat(store.convertLegacyCells()).isEqualTo(1);

    assertThat(original).doesNotExist();
    Path kept = store.directory().resolve("legacy").resolve(original.getFileName());
    assertThat(Files.readAllBytes(kept)).isEqualTo(originalBytes);
    assertThat(store.columnarFile(dense.fingerprint())).isPresent();
    assertThat(store.readAll()).containsExactlyElementsOf(sorted(dense, bm25));
    assertThat(store.convertLegacyCells()).isZero();
  }

  @Test
  void aConversionCutShortIsFinishedAndTheCellReadOnce() throws IOException {
    ResultStore store = ResultStore.open(tmp);
    Path original = writeLegacy(store, dense);
    // as after a crash between writing the columnar files and moving the original away
    ResultStore.open(tmp.resolve("elsewhere")).append(dense);
    for (String suffix : List.of(".cell.json", ".queries.parquet")) {
      Files.copy(
          tmp.resolve("elsewhere/cells").resolve(dense.fingerprint() + suffix),
          store.directory().resolve(dense.fingerprint() + suffix));
    }
    assertThat(store.readAll()).containsExactly(dense);

    assertThat(store.convertLegacyCells()).isZero();

    assertThat(original).doesNotExist();
    assertThat(store.directory().resolve("legacy").resolve(original.getFileName())).exists();
    assertThat(store.readAll()).containsExactly(dense);
  }

  @Test
  void aDamagedLegacyCellIsRefusedByTheConversionAndKept() throws IOException {
    ResultStore store = ResultStore.open(tmp);
    Path original = writeLegacy(store, dense);
    byte[] bytes = Files.readAllBytes(original);
    Files.write(original, java.util.Arrays.copyOf(bytes, bytes.length - 4));

    assertThatThrownBy(store::convertLegacyCells)
        .isInstanceOf(PreconditionException.class)
        .hasMessageContaining(original.getFileName().toString());
    assertThat(original).exists();
    assertThat(store.columnarFile(dense.fingerprint())).isEmpty();
  }

  @Test
  void aStoreMixingLegacyAndColumnarCellsGivesTheLeaderboardOfAnAllLegacyOne() throws IOException {
    ResultStore legacy = ResultStore.open(tmp.resolve("legacy-only"));
    for (CellRecord cell : List.of(dense, bm25, other)) {
      writeLegacy(legacy, cell);
    }
    ResultStore mixed = ResultStore.open(tmp.resolve("mixed"));
    writeLegacy(mixed, dense);
    mixed.append(bm25);
    mixed.append(other);

    List<CellRecord> legacyCells = legacy.readAll();
    List<CellRecord> mixedCells = mixed.readAll(Rankings.LEFT_IN_FILE);
    assertThat(mixedCells)
        .extracting(CellRecord::fingerprint)
        .containsExactlyElementsOf(legacyCells.stream().map(CellRecord::fingerprint).toList());
    assertThat(mixed.readAll()).isEqualTo(legacyCells);

    LeaderboardOptions options = LeaderboardOptions.defaults();
    Leaderboard expected = Leaderboard.of(legacyCells, options);
    Leaderboard actual = Leaderboard.of(mixedCells, options);
    assertThat(actual.rows()).isEqualTo(expected.rows());
    assertThat(actual.ranked()).isEqualTo(expected.ranked());
    Path fromLegacy = Files.createDirectories(tmp.resolve("report-legacy"));
    Path fromMixed = Files.createDirectories(tmp.resolve("report-mixed"));
    String legacyTable = Leaderboards.writeAll(legacyCells, fromLegacy, options, null);
    String mixedTable = Leaderboards.writeAll(mixedCells, fromMixed, options, null);
    assertThat(mixedTable).isEqualTo(legacyTable);
    assertThat(Files.readString(fromMixed.resolve(Leaderboards.MARKDOWN_FILE)))
        .isEqualTo(Files.readString(fromLegacy.resolve(Leaderboards.MARKDOWN_FILE)));
    assertThat(Files.readString(fromMixed.resolve(Leaderboards.HTML_FILE)))
        .isEqualTo(Files.readString(fromLegacy.resolve(Leaderboards.HTML_FILE)));
  }

  @Test
  void concurrentWritersAndReadersOfOneStoreSeeWholeCellsOnly() throws Exception {
    ResultStore store = ResultStore.open(tmp);
    List<CellRecord> cells = new ArrayList<>();
    for (int i = 0; i < 12; i++) {
      cells.add(
          EvaluatedCells.cell(
              EvaluatedCells.key("Task" + i, "dense", "m", "base"),
              EvaluatedCells.QRELS,
              EvaluatedCells.run(i)));
    }
    ExecutorService pool = Executors.newFixedThreadPool(4);
    try {
      List<Future<?>> work = new ArrayList<>();
      for (CellRecord cell : cells) {
        // two stores (as two jobs or processes would open) racing to write the same cell
        work.add(pool.submit(() -> ResultStore.open(tmp).append(cell)));
        work.add(pool.submit(() -> store.append(cell)));
        work.add(
            pool.submit(
                () ->
                    assertThat(ResultStore.open(tmp).readAll(Rankings.LEFT_IN_FILE))
                        .allSatisfy(read -> assertThat(read.queries()).hasSize(2))));
      }
      for (Future<?> future : work) {
        future.get();
      }
    } finally {
      pool.shutdown();
    }
    assertThat(store.readAll()).containsExactlyInAnyOrderElementsOf(cells);
  }

  /**
   * A cell whose queries differ in metrics and length: one with no documents, one with no metrics,
   * scores that are FP32 extremes, negative zero and FP64 values, ids with quotes.
   */
  private CellRecord awkwardCell() {
    Map<String, List<ScoredDoc>> run = EvaluatedCells.run(0);
    CellRecord base =
        EvaluatedCells.cell(
            EvaluatedCells.key("Awkward", "dense", "m", "base"), EvaluatedCells.QRELS, run);
    List<StoredQuery> queries = new ArrayList<>(base.queries());
    queries.add(
        new StoredQuery(
            "q'3 \"quoted\"",
            new LinkedHashMap<>(Map.of("ndcg@10", 0.1 + 0.2, "extra@5", Double.MIN_VALUE)),
            List.of(
                new StoredDoc("d'x", Float.MAX_VALUE, 1),
                new StoredDoc("é文", Float.MIN_VALUE, 2),
                new StoredDoc("z", -0.0, 3),
                new StoredDoc("w", Math.PI, 4),
                new StoredDoc("v", Float.NEGATIVE_INFINITY, 5))));
    queries.add(new StoredQuery("q4", Map.of(), List.of()));
    queries.add(new StoredQuery("q5", Map.of("ndcg@10", 0.0), List.of()));
    return new CellRecord(
        base.formatVersion(),
        base.fingerprint(),
        base.key(),
        base.versions(),
        base.facts(),
        base.metrics(),
        base.tieAware(),
        base.timings(),
        base.diagnostics(),
        queries,
        base.finishedAt());
  }

  private static Path writeLegacy(ResultStore store, CellRecord cell) throws IOException {
    Path file = store.directory().resolve(cell.fingerprint() + ".json.gz");
    try (OutputStream out = new GZIPOutputStream(Files.newOutputStream(file))) {
      ResultStore.JSON.writeValue(out, cell);
    }
    return file;
  }

  private static List<CellRecord> sorted(CellRecord... cells) {
    return java.util.Arrays.stream(cells).sorted(ResultStore.ORDER).toList();
  }
}
