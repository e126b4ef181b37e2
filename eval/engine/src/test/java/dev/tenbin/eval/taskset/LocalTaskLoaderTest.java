package dev.tenbin.eval.taskset;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tenbin.scoring.beir.DatasetException;
import dev.tenbin.scoring.beir.DatasetFingerprint;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LocalTaskLoaderTest {
  @TempDir Path tmp;

  private static Path tinyBeir(Path dir) throws Exception {
    Files.createDirectories(dir.resolve("qrels"));
    Files.writeString(
        dir.resolve("corpus.jsonl"),
        "{\"_id\": \"d1\", \"text\": \"apples\"}\n{\"_id\": \"d2\", \"text\": \"trains\"}\n");
    Files.writeString(dir.resolve("queries.jsonl"), "{\"_id\": \"q1\", \"text\": \"apple\"}\n");
    Files.writeString(dir.resolve("qrels/test.tsv"), "query-id\tcorpus-id\tscore\nq1\td1\t1\n");
    return dir;
  }

  @Test
  void aLocalFolderIsReadAndIdentifiedByItsContent() throws Exception {
    tinyBeir(tmp.resolve("data/tiny"));
    Path specFile =
        Files.writeString(
            tmp.resolve("set.yaml"),
            "name: local\ntasks:\n  - {name: tiny, language: en, domain: fruit, source: {path: data/tiny}}\n");
    TaskSetSpec spec = new TaskSetParser().parse(specFile);
    TaskLoader loader =
        new TaskLoader(
            tmp.resolve("cache"),
            new HubDatasetClient("http://127.0.0.1:9", tmp.resolve("cache"), null));

    LoadedTask loaded = loader.load(spec, spec.tasks().get(0));

    Path folder = tmp.resolve("data/tiny").toAbsolutePath().normalize();
    assertThat(loaded.task().domain()).isEqualTo("fruit");
    assertThat(loaded.dataset().corpus()).hasSize(2);
    assertThat(loaded.dataset().evaluatedQueryIds()).containsExactly("q1");
    assertThat(loaded.datasetSha()).isEqualTo(DatasetFingerprint.of(folder)).hasSize(64);
    assertThat(loaded.provenance())
        .containsEntry("source", "local")
        .containsEntry("path", folder.toString())
        .containsEntry("task_set", "local");
    assertThat(tmp.resolve("cache")).doesNotExist();
  }

  @Test
  void aTaskWithQueriesOfAnotherFolderIsCrossLingualWithItsOwnIdentity() throws Exception {
    tinyBeir(tmp.resolve("data/en"));
    Path german = tinyBeir(tmp.resolve("data/de"));
    Files.writeString(german.resolve("queries.jsonl"), "{\"_id\": \"q1\", \"text\": \"Apfel\"}\n");
    Path specFile =
        Files.writeString(
            tmp.resolve("set.yaml"),
            "name: local\ntasks:\n"
                + "  - {name: en, language: en, source: {path: data/en}}\n"
                + "  - {name: de-en, language: en, source: {path: data/en}, queries: data/de}\n");
    TaskSetSpec spec = new TaskSetParser().parse(specFile);
    TaskLoader loader =
        new TaskLoader(
            tmp.resolve("cache"),
            new HubDatasetClient("http://127.0.0.1:9", tmp.resolve("cache"), null));

    LoadedTask monolingual = loader.load(spec, spec.tasks().get(0));
    LoadedTask cross = loader.load(spec, spec.tasks().get(1));

    assertThat(cross.dataset().queries()).containsEntry("q1", "Apfel");
    assertThat(cross.dataset().corpus().toList())
        .isEqualTo(monolingual.dataset().corpus().toList());
    assertThat(cross.datasetSha()).hasSize(64).isNotEqualTo(monolingual.datasetSha());
    assertThat(cross.provenance())
        .containsEntry("queries", tmp.resolve("data/de").toAbsolutePath().normalize().toString());
  }

  @Test
  void aMissingLocalFolderIsADatasetError() throws Exception {
    Path specFile =
        Files.writeString(
            tmp.resolve("set.yaml"),
            "name: local\ntasks:\n  - {name: gone, language: en, source: {path: nowhere}}\n");
    TaskSetSpec spec = new TaskSetParser().parse(specFile);
    TaskLoader loader =
        new TaskLoader(
            tmp.resolve("cache"),
            new HubDatasetClient("http://127.0.0.1:9", tmp.resolve("cache"), null));
    assertThatThrownBy(() -> loader.loadAll(spec))
        .isInstanceOf(DatasetException.class)
        .hasMessageContaining("dataset folder not found");
  }
}
