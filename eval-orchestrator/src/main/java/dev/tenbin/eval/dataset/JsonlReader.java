package dev.tenbin.eval.dataset;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.IOException;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.BiConsumer;

/** Reads a JSON-lines file record by record, naming the file and line of anything malformed. */
final class JsonlReader {
  private static final ObjectMapper JSON = new ObjectMapper();

  private JsonlReader() {}

  /** Calls {@code consumer} with each non-blank line's object and its 1-based line number. */
  static void read(Path file, BiConsumer<JsonNode, Integer> consumer) {
    if (!Files.isRegularFile(file)) {
      throw new DatasetException("missing file " + file);
    }
    int lineNumber = 0;
    try (BufferedReader reader = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
      String line;
      while ((line = reader.readLine()) != null) {
        lineNumber++;
        if (line.isBlank()) {
          continue;
        }
        JsonNode node;
        try {
          node = JSON.readTree(line);
        } catch (JsonProcessingException e) {
          throw new DatasetException(
              file + " line " + lineNumber + ": not valid JSON (" + e.getOriginalMessage() + ")");
        }
        if (node == null || !node.isObject()) {
          throw new DatasetException(file + " line " + lineNumber + ": expected a JSON object");
        }
        consumer.accept(node, lineNumber);
      }
    } catch (CharacterCodingException e) {
      throw new DatasetException(file + " line " + (lineNumber + 1) + ": not valid UTF-8", e);
    } catch (IOException e) {
      throw new DatasetException("cannot read " + file + ": " + e.getMessage(), e);
    }
  }

  /** A required string field. */
  static String requiredText(JsonNode node, String field, Path file, int line) {
    JsonNode value = node.get(field);
    if (value == null || value.isNull()) {
      throw new DatasetException(file + " line " + line + ": missing \"" + field + "\"");
    }
    if (!value.isValueNode()) {
      throw new DatasetException(file + " line " + line + ": \"" + field + "\" must be a string");
    }
    return value.asText();
  }

  /** An optional string field; empty when absent or null. */
  static String optionalText(JsonNode node, String field) {
    JsonNode value = node.get(field);
    return value == null || value.isNull() ? "" : value.asText();
  }
}
