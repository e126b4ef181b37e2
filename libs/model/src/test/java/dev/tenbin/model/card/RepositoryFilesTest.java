package dev.tenbin.model.card;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class RepositoryFilesTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  /** A repository holding the given JSON files (name → content). */
  private static RepositoryFiles repository(Map<String, String> files) {
    return new RepositoryFiles() {
      @Override
      public Optional<JsonNode> json(String file) throws IOException {
        String content = files.get(file);
        return content == null ? Optional.empty() : Optional.of(JSON.readTree(content));
      }

      @Override
      public boolean fetch(String file) {
        return files.containsKey(file);
      }
    };
  }

  @Test
  void theTokenizerMaxLengthIsModelMaxLengthOfTheTokenizerConfig() throws IOException {
    assertThat(
            repository(Map.of("tokenizer_config.json", "{\"model_max_length\": 512}"))
                .tokenizerMaxLength())
        .hasValue(512);
  }

  @Test
  void noTokenizerConfigOrNoModelMaxLengthMeansNoTokenizerLimit() throws IOException {
    assertThat(repository(Map.of()).tokenizerMaxLength()).isEmpty();
    assertThat(
            repository(Map.of("tokenizer_config.json", "{\"do_lower_case\": true}"))
                .tokenizerMaxLength())
        .isEmpty();
  }

  @Test
  void theNoLimitSentinelOfUnlimitedTokenizersIsNotALength() throws IOException {
    assertThat(
            repository(
                    Map.of(
                        "tokenizer_config.json",
                        "{\"model_max_length\": 1000000000000000019884624838656}"))
                .tokenizerMaxLength())
        .isEmpty();
  }
}
