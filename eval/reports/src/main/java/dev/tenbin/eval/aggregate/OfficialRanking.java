package dev.tenbin.eval.aggregate;

import dev.tenbin.core.InvalidInputException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * A published ranking to compare with, read from a CSV file whose header is {@code model,score}
 * (higher is better) or {@code model,rank} (1 is best). The model column is split off at the last
 * comma, so a model name may itself contain commas; surrounding double quotes are removed.
 *
 * @param source where it was read from, for messages
 * @param column "score" or "rank"
 * @param values model name to its value, in file order
 */
public record OfficialRanking(String source, String column, Map<String, Double> values) {
  /** Reads a CSV file; a malformed file is an {@link InvalidInputException} on {@code field}. */
  public static OfficialRanking read(Path file, String field) {
    try {
      return parse(Files.readString(file, StandardCharsets.UTF_8), file.toString(), field);
    } catch (IOException e) {
      throw new InvalidInputException(
          field, field + " " + file + " cannot be read: " + e.getMessage());
    }
  }

  /** Parses CSV text. */
  public static OfficialRanking parse(String text, String source, String field) {
    List<String> lines = new ArrayList<>();
    for (String line : text.replace("\uFEFF", "").split("\r?\n")) {
      if (!line.isBlank()) {
        lines.add(line.strip());
      }
    }
    if (lines.isEmpty()) {
      throw new InvalidInputException(
          field,
          field + " " + source + " is empty; expected a header 'model,score' or 'model,rank'");
    }
    String[] header = split(lines.get(0));
    String column = header == null ? "" : header[1].toLowerCase(Locale.ROOT);
    if (header == null
        || !header[0].equalsIgnoreCase("model")
        || !(column.equals("score") || column.equals("rank"))) {
      throw new InvalidInputException(
          field,
          field
              + " "
              + source
              + ": the header must be 'model,score' or 'model,rank', got '"
              + lines.get(0)
              + "'");
    }
    Map<String, Double> values = new LinkedHashMap<>();
    for (int i = 1; i < lines.size(); i++) {
      String[] parts = split(lines.get(i));
      String where = field + " " + source + " line " + (i + 1);
      if (parts == null || parts[0].isEmpty()) {
        throw new InvalidInputException(
            field, where + ": expected 'model," + column + "', got '" + lines.get(i) + "'");
      }
      double value;
      try {
        value = Double.parseDouble(parts[1]);
      } catch (NumberFormatException e) {
        throw new InvalidInputException(
            field, where + ": " + column + " '" + parts[1] + "' is not a number");
      }
      if (!Double.isFinite(value)) {
        throw new InvalidInputException(field, where + ": " + column + " must be finite");
      }
      if (values.put(parts[0], value) != null) {
        throw new InvalidInputException(
            field, where + ": model '" + parts[0] + "' is listed twice");
      }
    }
    if (values.isEmpty()) {
      throw new InvalidInputException(field, field + " " + source + " lists no models");
    }
    return new OfficialRanking(source, column, values);
  }

  /** The value oriented so that higher is better (a rank is negated). */
  public double goodness(String model) {
    double value = values.get(model);
    return column.equals("rank") ? -value : value;
  }

  private static String[] split(String line) {
    int comma = line.lastIndexOf(',');
    if (comma < 0) {
      return null;
    }
    return new String[] {unquote(line.substring(0, comma)), unquote(line.substring(comma + 1))};
  }

  private static String unquote(String text) {
    String value = text.strip();
    if (value.length() >= 2 && value.startsWith("\"") && value.endsWith("\"")) {
      value = value.substring(1, value.length() - 1).replace("\"\"", "\"");
    }
    return value;
  }
}
