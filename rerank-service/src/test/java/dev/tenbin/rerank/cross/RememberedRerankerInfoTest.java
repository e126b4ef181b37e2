package dev.tenbin.rerank.cross;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenbin.model.hub.HubDownloader;
import dev.tenbin.model.onnx.OnnxModel;
import dev.tenbin.testing.models.FakeHub;
import dev.tenbin.testing.models.TinyModels;
import dev.tenbin.testing.models.TinyOnnxModels;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * GetRerankerInfo of a cross-encoder in the models folder is answered, in a later process, from
 * what an earlier one loaded from the very same files, without loading it (a warm rerun plans its
 * cells so); changed or just-written files, a card naming the hub, or a hub id mean a load.
 */
class RememberedRerankerInfoTest {
  @TempDir Path tmp;
  Path models;
  FakeHub hub;

  @BeforeEach
  void models() throws IOException {
    hub = new FakeHub();
    models = tmp.resolve("models");
    TinyModels.crossEncoder(models, "tiny-ce");
    writtenAnHourAgo(models.resolve("tiny-ce"));
  }

  @AfterEach
  void stopHub() {
    hub.close();
  }

  /** Sets every file of the folder to an hour ago: a model written earlier, its files settled. */
  private static void writtenAnHourAgo(Path folder) throws IOException {
    FileTime hourAgo = FileTime.from(Instant.now().minusSeconds(3600));
    try (Stream<Path> files = Files.walk(folder)) {
      for (Path file : files.filter(Files::isRegularFile).toList()) {
        Files.setLastModifiedTime(file, hourAgo);
      }
    }
  }

  /** A registry as a new process of the rerank service has it, over the same folders. */
  private RerankerRegistry process() {
    return new RerankerRegistry(
        models,
        new HubDownloader(hub.endpoint(), tmp.resolve("cache"), null),
        OnnxModel.RuntimeOptions.cpu(1),
        4096);
  }

  private RerankerRegistry.Info loadedOnce(String id) {
    try (RerankerRegistry first = process()) {
      RerankerRegistry.Info info = first.info(id);
      assertThat(first.loadedIds()).containsExactly(id);
      return info;
    }
  }

  @Test
  void aSecondProcessAnswersTheSameInfoWithoutLoadingTheCrossEncoder() {
    RerankerRegistry.Info loaded = loadedOnce("tiny-ce");
    assertThat(loaded.card().revision()).isEqualTo("r1");
    assertThat(loaded.modelSha256()).hasSize(64);
    try (RerankerRegistry second = process()) {
      assertThat(second.info("tiny-ce")).isEqualTo(loaded);
      assertThat(second.loadedIds()).isEmpty();
    }
  }

  @Test
  void aGraphReplacedUnderTheSameNameMeansTheCrossEncoderIsLoadedAgain() throws IOException {
    RerankerRegistry.Info loaded = loadedOnce("tiny-ce");
    Path graph = models.resolve("tiny-ce/model.onnx");
    Files.write(
        graph,
        TinyOnnxModels.pairClassifier(
            TinyOnnxModels.table(TinyModels.VOCABULARY, TinyModels.HIDDEN, 7),
            TinyOnnxModels.table(TinyModels.HIDDEN, 1, 8),
            TinyModels.VOCABULARY,
            TinyModels.HIDDEN,
            1,
            false));
    writtenAnHourAgo(models.resolve("tiny-ce"));
    try (RerankerRegistry second = process()) {
      RerankerRegistry.Info info = second.info("tiny-ce");
      assertThat(second.loadedIds()).containsExactly("tiny-ce");
      assertThat(info.modelSha256()).isNotEqualTo(loaded.modelSha256());
    }
    try (RerankerRegistry third = process()) {
      assertThat(third.info("tiny-ce").modelSha256()).isNotEqualTo(loaded.modelSha256());
      assertThat(third.loadedIds()).as("the new files' answer is remembered in turn").isEmpty();
    }
  }

  @Test
  void aCrossEncoderWrittenMomentsAgoIsLoadedEveryTimeUntilItsFilesHaveSettled()
      throws IOException {
    TinyModels.crossEncoder(models, "fresh-ce");
    for (int process = 0; process < 2; process++) {
      try (RerankerRegistry registry = process()) {
        registry.info("fresh-ce");
        assertThat(registry.loadedIds()).as("process %d", process).containsExactly("fresh-ce");
      }
    }
    writtenAnHourAgo(models.resolve("fresh-ce"));
    loadedOnce("fresh-ce");
    try (RerankerRegistry registry = process()) {
      registry.info("fresh-ce");
      assertThat(registry.loadedIds()).isEmpty();
    }
  }

  @Test
  void theEncodersRememberedAnswersAreNotTakenForACrossEncoders() throws IOException {
    loadedOnce("tiny-ce");
    Path entry;
    try (Stream<Path> entries = Files.list(tmp.resolve("cache/model-info"))) {
      entry = entries.filter(p -> p.toString().endsWith(".json")).findFirst().orElseThrow();
    }
    String text = Files.readString(entry);
    assertThat(text).contains("\"kind\" : \"reranker\"");
    Files.writeString(entry, text.replace("\"kind\" : \"reranker\"", "\"kind\" : \"encoder\""));
    try (RerankerRegistry second = process()) {
      second.info("tiny-ce");
      assertThat(second.loadedIds()).containsExactly("tiny-ce");
    }
  }

  @Test
  void aHubCrossEncoderIsLoadedToAnswerInEveryProcess() throws IOException {
    var files = hub.repository("cross-encoder/tiny-ce");
    files.put("onnx/model.onnx", modelBytes());
    files.put("tokenizer.json", TinyOnnxModels.wordLevelTokenizer(TinyModels.WORDS));
    files.put(
        "config.json",
        "{\"architectures\": [\"BertForSequenceClassification\"], \"num_labels\": 1}"
            .getBytes(StandardCharsets.UTF_8));
    String id = "hub:cross-encoder/tiny-ce@" + FakeHub.SHA;
    RerankerRegistry.Info loaded = loadedOnce(id);
    try (RerankerRegistry second = process()) {
      assertThat(second.info(id)).isEqualTo(loaded);
      assertThat(second.loadedIds()).containsExactly(id);
    }
  }

  private byte[] modelBytes() throws IOException {
    return Files.readAllBytes(models.resolve("tiny-ce/model.onnx"));
  }
}
