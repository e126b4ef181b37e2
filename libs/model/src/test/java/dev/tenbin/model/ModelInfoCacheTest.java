package dev.tenbin.model;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Remembered answers are found again only by the same kind, id and stamp, read back equal to what
 * was stored, and never trusted when damaged, incomplete or taken from files that have changed.
 */
class ModelInfoCacheTest {
  /** An answer as a service gives it: a nested record, a string, a hash. */
  record Answer(Card card, String dtype, String modelSha256) {}

  record Card(String id, int dimension, List<Integer> matryoshka) {}

  @TempDir Path tmp;
  Path cache;
  Path model;
  Answer answer;

  @BeforeEach
  void model() throws IOException {
    cache = tmp.resolve("cache");
    model = Files.createDirectories(tmp.resolve("models/m"));
    Files.writeString(model.resolve("model.onnx"), "graph");
    Files.writeString(model.resolve("card.json"), "{}");
    settle(model.resolve("model.onnx"));
    settle(model.resolve("card.json"));
    answer = new Answer(new Card("m", 384, List.of(64, 128)), "FLOAT", "ab12");
  }

  private static void settle(Path file) throws IOException {
    Files.setLastModifiedTime(file, FileTime.from(Instant.now().minusSeconds(3600)));
  }

  private ModelInfoCache<Answer> cache(String kind) {
    return new ModelInfoCache<>(cache, kind, Answer.class, a -> !a.modelSha256().isEmpty());
  }

  private Optional<String> stamp() throws IOException {
    return FileStamps.ofFolder(model);
  }

  private List<Path> entries() throws IOException {
    try (Stream<Path> files = Files.list(cache.resolve("model-info"))) {
      return files.toList();
    }
  }

  @Test
  void anAnswerRememberedUnderAStampIsFoundEqualByAnotherInstance() throws IOException {
    cache("encoder").remember("m", stamp(), answer);
    assertThat(cache("encoder").find("m", stamp())).contains(answer);
    assertThat(entries()).hasSize(1).allMatch(p -> p.toString().endsWith(".json"));
  }

  @Test
  void anotherKindOrIdOrStampFindsNothing() throws IOException {
    cache("encoder").remember("m", stamp(), answer);
    assertThat(cache("reranker").find("m", stamp())).isEmpty();
    assertThat(cache("encoder").find("other", stamp())).isEmpty();
    Files.writeString(model.resolve("card.json"), "{ }");
    settle(model.resolve("card.json"));
    assertThat(cache("encoder").find("m", stamp())).as("a file grew").isEmpty();
  }

  @Test
  void withoutAStampNothingIsRememberedOrFound() throws IOException {
    Files.writeString(model.resolve("model.onnx"), "graph, just written");
    assertThat(stamp()).as("a file modified moments ago has no stamp").isEmpty();
    cache("encoder").remember("m", stamp(), answer);
    assertThat(cache.resolve("model-info")).doesNotExist();
    assertThat(cache("encoder").find("m", Optional.empty())).isEmpty();
  }

  @Test
  void aDamagedOrUnusableEntryIsIgnoredAndOverwrittenByTheNextAnswer() throws IOException {
    cache("encoder").remember("m", stamp(), answer);
    Path entry = entries().getFirst();
    Files.writeString(entry, "{\"format\": \"tenbin-model-info-v2\", \"info\": ");
    assertThat(cache("encoder").find("m", stamp())).isEmpty();

    cache("encoder").remember("m", stamp(), new Answer(answer.card(), "FLOAT", ""));
    assertThat(cache("encoder").find("m", stamp())).as("the owner finds it unusable").isEmpty();

    cache("encoder").remember("m", stamp(), answer);
    assertThat(cache("encoder").find("m", stamp())).contains(answer);
    assertThat(entries()).as("one entry, no partial files left").hasSize(1);
  }

  @Test
  void aCacheFolderThatCannotBeWrittenOnlyMeansNothingIsRemembered() throws IOException {
    Files.writeString(cache.getParent().resolve("cache"), "a file where the folder should be");
    ModelInfoCache<Answer> blocked = cache("encoder");
    blocked.remember("m", stamp(), answer);
    assertThat(blocked.find("m", stamp())).isEmpty();
  }
}
