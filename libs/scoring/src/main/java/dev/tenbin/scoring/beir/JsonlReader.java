package dev.tenbin.scoring.beir;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tenbin.scoring.trec.RecordIds;
import java.io.BufferedReader;
import java.io.IOException;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.BiConsumer;

/**
 * Reads a JSON-lines file record by record, naming the file and line of anything malformed. A line
 * is exactly one JSON object: trailing data after it and duplicate keys (which a lenient parser
 * would silently drop or overwrite) are errors.
 */
final class JsonlReader {
  private static final ObjectMapper JSON =
      new ObjectMapper()
          .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
          .enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION);

  /** Parser messages quote the input; they are cut so an error never echoes a whole line. */
  private static final int MAX_DETAIL = 160;

  private JsonlReader() {}

  /**
   * Calls {@code consumer} with each non-blank line's object and its 1-based line number; a file
   * whose name ends in {@code .gz} is read through gzip. A consumer that throws ends the read (the
   * file is closed).
   */
  static void read(Path file, BiConsumer<JsonNode, Integer> consumer) {
    if (!Files.isRegularFile(file)) {
      throw new DatasetException("missing file " + file);
    }
    int lineNumber = 0;
    try (BufferedReader reader = open(file)) {
      String line;
      while ((line = reader.readLine()) != null) {
        lineNumber++;
        if (line.isBlank()) {
          continue;
        }
        consumer.accept(parse(file, lineNumber, line), lineNumber);
      }
    } catch (CharacterCodingException e) {
      throw new DatasetException(file + " line " + (lineNumber + 1) + ": not valid UTF-8", e);
    } catch (java.util.zip.ZipException e) {
      throw new DatasetException(
          file + " after line " + lineNumber + ": not valid gzip (" + e.getMessage() + ")", e);
    } catch (java.io.EOFException e) {
      throw new DatasetException(file + " after line " + lineNumber + ": the file ends early", e);
    } catch (IOException e) {
      throw new DatasetException("cannot read " + file + ": " + e.getMessage(), e);
    }
  }

  /** A strict UTF-8 reader of {@code file}, through gzip when its name ends in {@code .gz}. */
  static BufferedReader open(Path file) throws IOException {
    java.io.InputStream in = Files.newInputStream(file);
    try {
      if (file.getFileName().toString().endsWith(".gz")) {
        in = new java.util.zip.GZIPInputStream(in, 1 << 16);
      }
      return new BufferedReader(
          new java.io.InputStreamReader(
              in,
              StandardCharsets.UTF_8
                  .newDecoder()
                  .onMalformedInput(java.nio.charset.CodingErrorAction.REPORT)
                  .onUnmappableCharacter(java.nio.charset.CodingErrorAction.REPORT)),
          1 << 16);
    } catch (IOException | RuntimeException e) {
      in.close();
      throw e;
    }
  }

  /** One line's object, or an error naming the file and line. */
  static JsonNode parse(Path file, int lineNumber, String line) {
    JsonNode node;
    try {
      node = JSON.readTree(line);
    } catch (JsonProcessingException e) {
      throw new DatasetException(
          file + " line " + lineNumber + ": not valid JSON (" + cut(e.getOriginalMessage()) + ")");
    }
    if (node == null || !node.isObject()) {
      throw new DatasetException(file + " line " + lineNumber + ": expected a JSON object");
    }
    return node;
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
  static String optionalText(JsonNode node, String field, Path file, int line) {
    JsonNode value = node.get(field);
    if (value == null || value.isNull()) {
      return "";
    }
    if (!value.isValueNode()) {
      throw new DatasetException(file + " line " + line + ": \"" + field + "\" must be a string");
    }
    return value.asText();
  }

  /** A required id field: a {@link RecordIds valid id}. */
  static String requiredId(JsonNode node, String field, Path file, int line) {
    String id = requiredText(node, field, file, line);
    String problem = RecordIds.problem(id);
    if (problem != null) {
      throw new DatasetException(file + " line " + line + ": \"" + field + "\" " + problem);
    }
    return id;
  }

  private static String cut(String message) {
    String text = String.valueOf(message);
    return text.length() <= MAX_DETAIL ? text : text.substring(0, MAX_DETAIL) + "...";
  }
}
