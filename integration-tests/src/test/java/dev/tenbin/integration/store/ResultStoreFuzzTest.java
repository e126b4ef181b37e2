package dev.tenbin.integration.store;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.tenbin.core.PreconditionException;
import dev.tenbin.eval.store.CellKey;
import dev.tenbin.eval.store.CellRecord;
import dev.tenbin.eval.store.ResultStore;
import dev.tenbin.eval.store.StoredDoc;
import dev.tenbin.eval.store.StoredQuery;
import dev.tenbin.eval.testing.EvaluatedCells;
import dev.tenbin.testing.data.Scratch;
import java.io.ByteArrayOutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.zip.GZIPOutputStream;

/**
 * Fuzzes the result store's reader with torn and corrupt cell files. Contract: a damaged compressed
 * cell (truncated, bytes flipped or overwritten, garbage appended) reads back exactly as stored or
 * is refused with a {@link PreconditionException} naming the file; a cell file with any other
 * content is refused the same way unless it is a complete cell record whose fingerprint is its file
 * name. Never another exception, never a cell with missing parts.
 */
class ResultStoreFuzzTest {
  private static final CellRecord CELL =
      EvaluatedCells.cell(
          EvaluatedCells.key("NanoSciFact", "dense", "m", "int8"),
          EvaluatedCells.QRELS,
          EvaluatedCells.run(0));

  /**
   * The cell as the store writes it (stored once: appending forces the file to disk, too slow per
   * input).
   */
  private static final byte[] STORED = stored();

  @FuzzTest
  void damagedCompressedCells(FuzzedDataProvider data) throws Exception {
    ResultStore store = ResultStore.open(Scratch.fresh("store"));
    Path file = store.directory().resolve(CELL.fingerprint() + ".json.gz");
    byte[] bytes = STORED;
    int damages = data.consumeInt(1, 4);
    for (int i = 0; i < damages && bytes.length > 0; i++) {
      bytes =
          switch (data.consumeInt(0, 3)) {
            case 0 -> java.util.Arrays.copyOf(bytes, data.consumeInt(0, bytes.length - 1));
            case 1 -> flip(bytes, data.consumeInt(0, bytes.length - 1), data.consumeByte());
            case 2 -> overwrite(bytes, data.consumeInt(0, bytes.length - 1), data.consumeBytes(16));
            default -> concat(bytes, data.consumeBytes(64));
          };
    }
    Files.write(file, bytes);
    Optional<CellRecord> back = readOrRefuse(store, file);
    if (back != null) {
      assertThat(
              ResultStore.JSON.<com.fasterxml.jackson.databind.JsonNode>valueToTree(
                  back.orElseThrow()))
          .as("a damaged compressed cell is either refused or exactly the stored one")
          .isEqualTo(ResultStore.JSON.<com.fasterxml.jackson.databind.JsonNode>valueToTree(CELL));
    }
  }

  @FuzzTest
  void arbitraryCellFiles(FuzzedDataProvider data) throws Exception {
    ResultStore store = ResultStore.open(Scratch.fresh("store"));
    boolean compressed = data.consumeBoolean();
    byte[] content = data.consumeRemainingAsBytes();
    Path file = store.directory().resolve(CELL.fingerprint() + (compressed ? ".json.gz" : ".json"));
    Files.write(file, compressed ? gzip(content) : content);
    Optional<CellRecord> back = readOrRefuse(store, file);
    if (back != null) {
      assertComplete(back.orElseThrow(), CELL.fingerprint());
    }
  }

  /**
   * The cell as read by {@code read} and {@code readAll} (which must agree), or null when both
   * refused.
   */
  private static byte[] stored() {
    ResultStore store = ResultStore.open(Scratch.fresh("stored"));
    store.append(CELL);
    try {
      return Files.readAllBytes(store.storedFile(CELL.fingerprint()));
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  private static Optional<CellRecord> readOrRefuse(ResultStore store, Path file) {
    Optional<CellRecord> one;
    try {
      one = store.read(CELL.fingerprint());
    } catch (PreconditionException refused) {
      assertThat(refused.getMessage()).contains(file.getFileName().toString());
      one = null;
    }
    List<CellRecord> all;
    try {
      all = store.readAll();
    } catch (PreconditionException refused) {
      assertThat(refused.getMessage()).contains(file.getFileName().toString());
      all = null;
    }
    assertThat(all == null).as("read and readAll agree on refusing").isEqualTo(one == null);
    if (one != null) {
      assertThat(one).isPresent();
      assertThat(all).containsExactly(one.orElseThrow());
    }
    return one;
  }

  private static void assertComplete(CellRecord cell, String fingerprint) {
    assertThat(cell.fingerprint()).isEqualTo(fingerprint);
    assertThat(cell.formatVersion()).isEqualTo(CellRecord.FORMAT_VERSION);
    CellKey key = cell.key();
    assertThat(key).isNotNull();
    assertThat(
            List.of(
                key.task().benchmark(),
                key.task().dataset(),
                key.task().task(),
                key.task().language(),
                key.task().domain(),
                key.system().model(),
                key.system().family(),
                key.variant(),
                key.mode()))
        .doesNotContainNull();
    assertThat(
            List.of(
                cell.versions(),
                cell.facts(),
                cell.metrics(),
                cell.tieAware(),
                cell.timings(),
                cell.diagnostics(),
                cell.queries()))
        .doesNotContainNull();
    assertThat(cell.finishedAt()).isNotNull();
    for (StoredQuery query : cell.queries()) {
      assertThat(query).isNotNull();
      assertThat(query.queryId()).isNotNull();
      assertThat(query.metrics()).isNotNull().doesNotContainValue(null);
      assertThat(query.docs()).isNotNull();
      for (StoredDoc doc : query.docs()) {
        assertThat(doc).isNotNull();
        assertThat(doc.docId()).isNotNull();
      }
    }
    assertThat(cell.metrics()).doesNotContainValue(null);
    assertThat(cell.tieAware()).doesNotContainValue(null);
  }

  private static byte[] flip(byte[] bytes, int at, byte mask) {
    byte[] out = bytes.clone();
    out[at] ^= mask == 0 ? 1 : mask;
    return out;
  }

  private static byte[] overwrite(byte[] bytes, int at, byte[] with) {
    byte[] out = bytes.clone();
    System.arraycopy(with, 0, out, at, Math.min(with.length, out.length - at));
    return out;
  }

  private static byte[] concat(byte[] a, byte[] b) {
    byte[] out = java.util.Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, out, a.length, b.length);
    return out;
  }

  private static byte[] gzip(byte[] content) throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (GZIPOutputStream gz = new GZIPOutputStream(out)) {
      gz.write(content);
    }
    return out.toByteArray();
  }
}
