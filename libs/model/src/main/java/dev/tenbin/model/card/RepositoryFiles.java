package dev.tenbin.model.card;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.util.Optional;
import java.util.OptionalInt;

/** A hub repository's files at one commit, as a card maker reaches them. */
public interface RepositoryFiles {
  /** A JSON file's content (downloaded), empty when the repository has no such file. */
  Optional<JsonNode> json(String file) throws IOException;

  /** Downloads a file, false when the repository has no such file. */
  boolean fetch(String file) throws IOException;

  /**
   * {@code model_max_length} of {@code tokenizer_config.json}; empty when the file or the field is
   * absent, or holds the huge sentinel (1e30) that tokenizers without a limit store.
   */
  default OptionalInt tokenizerMaxLength() throws IOException {
    double length =
        json("tokenizer_config.json")
            .map(config -> config.path("model_max_length").asDouble(0))
            .orElse(0.0);
    return length > 0 && length < 1_000_000 ? OptionalInt.of((int) length) : OptionalInt.empty();
  }
}
