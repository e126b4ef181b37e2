package dev.tenbin.integration.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tenbin.core.PreconditionException;
import dev.tenbin.eval.store.CellRecord;
import dev.tenbin.eval.store.ResultStore;
import dev.tenbin.eval.testing.EvaluatedCells;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The append-only store: whole cells or none, never rewritten, read back exactly. */
class ResultStoreTest {
  @TempDir Path tmp;

  private final CellRecord cell =
      EvaluatedCells.cell(
          EvaluatedCells.key("NanoSciFact", "dense", "m", "int8"),
          EvaluatedCells.QRELS,
          EvaluatedCells.run(0));

  @Test
  void aStoredCellReadsBackEqualWithItsScoresBitForBit() {
    ResultStore store = ResultStore.open(tmp);
    assertThat(store.contains(cell.fingerprint())).isFalse();
    assertThat(store.append(cell)).isTrue();
    assertThat(store.contains(cell.fingerprint())).isTrue();
    assertThat(store.storedFile(cell.fingerprint()).getFileName().toString())
        .endsWith(".cell.json");
    CellRecord back = store.read(cell.fingerprint()).orElseThrow();
    assertThat(back).isEqualTo(cell);
    assertThat(back.queries().get(1).docs().getFirst().score()).isEqualTo((double) 2.5946288f);
  }

  @Test
  void aStoredCellIsNeverRewritten() throws Exception {
    ResultStore store = ResultStore.open(tmp);
    store.append(cell);
    byte[] first = Files.readAllBytes(store.storedFile(cell.fingerprint()));
    Path parquet = store.columnarFile(cell.fingerprint()).orElseThrow();
    byte[] firstParquet = Files.readAllBytes(parquet);
    assertThat(store.append(cell)).isFalse();
    assertThat(Files.readAllBytes(store.storedFile(cell.fingerprint()))).isEqualTo(first);
    assertThat(Files.readAllBytes(parquet)).isEqualTo(firstParquet);
  }

  @Test
  void tornTemporaryFilesAreIgnoredAndPlainJsonCellsAreReadToo() throws Exception {
    ResultStore store = ResultStore.open(tmp);
    Files.writeString(
        store.directory().resolve("." + cell.fingerprint() + ".x.tmp"), "{\"format_vers");
    assertThat(store.readAll()).isEmpty();
    assertThat(store.contains(cell.fingerprint())).isFalse();
    try (OutputStream out =
        Files.newOutputStream(store.directory().resolve(cell.fingerprint() + ".json"))) {
      ResultStore.JSON.writeValue(out, cell);
    }
    assertThat(store.readAll()).containsExactly(cell);
    assertThat(store.append(cell)).isFalse();
  }

  @Test
  void aDamagedCellFileIsRefusedNamingItNeverReadAsAnotherCell() throws Exception {
    ResultStore store = ResultStore.open(tmp);
    Path file = store.directory().resolve(cell.fingerprint() + ".json.gz");
    try (OutputStream out = new java.util.zip.GZIPOutputStream(Files.newOutputStream(file))) {
      ResultStore.JSON.writeValue(out, cell);
    }
    byte[] bytes = Files.readAllBytes(file);
    Files.write(file, java.util.Arrays.copyOf(bytes, bytes.length - 4));
    assertThatThrownBy(() -> store.read(cell.fingerprint()))
        .isInstanceOf(PreconditionException.class)
        .hasMessageContaining(file.getFileName().toString())
        .hasMessageContaining("damaged");
    assertThatThrownBy(store::readAll).isInstanceOf(PreconditionException.class);

    Files.delete(file);
    Path plain = store.directory().resolve(cell.fingerprint() + ".json");
    for (String content :
        new String[] {
          "null",
          "{}",
          ResultStore.JSON.writeValueAsString(cell).replace(cell.fingerprint(), "0".repeat(64))
        }) {
      Files.writeString(plain, content);
      assertThatThrownBy(() -> store.read(cell.fingerprint()))
          .as(content)
          .isInstanceOf(PreconditionException.class);
    }
  }
}
