package dev.tenbin.eval.taskset;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tenbin.core.InvalidInputException;
import dev.tenbin.core.PermissionDeniedException;
import dev.tenbin.core.SafeText;
import dev.tenbin.core.TenbinException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * A YAML value of a task-set spec with its path from the root ({@code tasks[3].source}), so that
 * every error names the spec file and the field it is about.
 */
final class SpecNode {
  private final JsonNode node;
  private final String path;
  private final String file;

  SpecNode(JsonNode node, String path, String file) {
    this.node = node;
    this.path = path;
    this.file = file;
  }

  String path() {
    return path;
  }

  boolean isText() {
    return node.isValueNode() && !node.isNull();
  }

  boolean has(String key) {
    JsonNode value = node.get(key);
    return value != null && !value.isNull();
  }

  /** The value under {@code key}, which must be present. */
  SpecNode required(String key) {
    if (!has(key)) {
      throw error(field(key), "missing (required)");
    }
    return child(key);
  }

  SpecNode child(String key) {
    return new SpecNode(node.get(key), field(key), file);
  }

  /** This value as a mapping whose keys are all in {@code allowed}. */
  SpecNode mapping(Set<String> allowed) {
    if (!node.isObject()) {
      throw error(path, "expected a mapping with keys " + String.join(", ", allowed));
    }
    Iterator<String> names = node.fieldNames();
    while (names.hasNext()) {
      String name = names.next();
      if (!allowed.contains(name)) {
        throw error(
            field(name),
            "unknown key "
                + SafeText.quote(name)
                + " (expected one of "
                + String.join(", ", allowed)
                + ")");
      }
    }
    return this;
  }

  /** This value as a mapping with any keys, in file order. */
  List<Map.Entry<String, SpecNode>> entries() {
    if (!node.isObject()) {
      throw error(path, "expected a mapping");
    }
    List<Map.Entry<String, SpecNode>> entries = new ArrayList<>();
    node.fields().forEachRemaining(e -> entries.add(Map.entry(e.getKey(), child(e.getKey()))));
    return entries;
  }

  /** This value as a list. */
  List<SpecNode> elements() {
    if (!node.isArray()) {
      throw error(path, "expected a list");
    }
    List<SpecNode> elements = new ArrayList<>();
    for (int i = 0; i < node.size(); i++) {
      elements.add(new SpecNode(node.get(i), path + "[" + i + "]", file));
    }
    return elements;
  }

  /** This value as a non-blank string. */
  String text() {
    if (!isText()) {
      throw error(path, "expected a string");
    }
    String text = node.asText().strip();
    if (text.isEmpty()) {
      throw error(path, "must not be empty");
    }
    return text;
  }

  /**
   * This value as a string matching {@code pattern}; {@code expected} says what it should look
   * like.
   */
  String text(Pattern pattern, String expected) {
    String text = text();
    if (!pattern.matcher(text).matches()) {
      throw error(path, SafeText.quote(text) + " is not " + expected);
    }
    return text;
  }

  /** The string under {@code key}, or {@code fallback} when absent. */
  String optionalText(String key, String fallback) {
    return has(key) ? child(key).text() : fallback;
  }

  /**
   * A refusal of this value by a {@link DatasetPaths} (e.g. a path outside the data roots), as the
   * same exception type naming this value's YAML path; the refusal's message is kept.
   */
  TenbinException refused(TenbinException refusal) {
    String message = file + ": " + refusal.getMessage();
    return switch (refusal) {
      case PermissionDeniedException e -> new PermissionDeniedException(path, message);
      default -> new InvalidInputException(path, message);
    };
  }

  InvalidInputException error(String message) {
    return error(path, message);
  }

  InvalidInputException error(String field, String message) {
    return new InvalidInputException(
        field, file + ": " + (field.isEmpty() ? "" : field + ": ") + message);
  }

  private String field(String key) {
    return path.isEmpty() ? key : path + "." + key;
  }
}
